#!/usr/bin/env bash
# Builds the file-system layer of the dplrf container image without a Docker daemon or a registry
# (the CI machine reaches Maven Central only): a jlink'ed Java runtime, the C libraries that runtime
# links against, copied from the build machine together with their dynamic loader, and the few
# files a process expects (/etc/passwd with the dplrf user, /tmp, the state directory).
# Jib then puts this directory under the application layers (image/pom.xml).
#
# usage: rootfs.sh JAVA_HOME OUT_DIR
set -euo pipefail

java_home="$1"
out="$2"
jre="$out/opt/dplrf/jre"

# The modules `jdeps --print-module-deps` finds in the shaded jar (java.desktop only for java.beans;
# the image runs headless), plus jdk.crypto.ec for TLS, jdk.naming.dns and jdk.zipfs that Kafka's
# clients and server may load by name, and jdk.jfr for flight recordings in production.
modules=java.base,java.desktop,java.logging,java.management,java.naming,java.net.http,java.security.jgss,java.security.sasl,java.sql,java.xml,jdk.crypto.ec,jdk.jfr,jdk.management,jdk.naming.dns,jdk.unsupported,jdk.zipfs

rm -rf "$out"
mkdir -p "$out"
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
  --compress=2 --output "$jre"

# Shared libraries: what the launcher, the JVM and the runtime's own libraries need, except the
# AWT/sound/font libraries (never loaded headless, and they would drag in X11).
libs="$(mktemp)"
trap 'rm -f "$libs"' EXIT
find "$jre" -type f \( -name '*.so' -o -path '*/bin/*' \) \
  ! -name 'libawt*' ! -name 'libjawt.so' ! -name 'libsplashscreen.so' ! -name 'libjsound.so' ! -name 'libfontmanager.so' \
  ! -name 'liblcms.so' ! -name 'libjavajpeg.so' ! -name 'libmlib_image.so' \
  -print0 | while IFS= read -r -d '' f; do
    # "name => /path (addr)" lines; runtime-internal libraries resolve inside $jre and are skipped.
    ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}' || true
  done | grep -v "^$jre" | sort -u >"$libs"
loader="$(ldd "$jre/bin/java" | awk '$1 ~ /^\/.*ld-linux/ {print $1}')"
[[ -n "$loader" ]] || { echo "rootfs.sh: no dynamic loader found for $jre/bin/java" >&2; exit 1; }
mkdir -p "$out/lib/x86_64-linux-gnu" "$out$(dirname "$loader")"
while read -r lib; do
  cp -L "$lib" "$out/lib/x86_64-linux-gnu/$(basename "$lib")"
done <"$libs"
cp -L "$loader" "$out$loader"

mkdir -p "$out/etc" "$out/tmp" "$out/var/lib/dplrf"
cat >"$out/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
dplrf:x:65532:65532:dplrf:/var/lib/dplrf:/sbin/nologin
PASSWD
cat >"$out/etc/group" <<'GROUP'
root:x:0:
dplrf:x:65532:
GROUP
echo 'hosts: files dns' >"$out/etc/nsswitch.conf"
echo "rootfs.sh: $(du -sh "$out" | cut -f1) in $out ($(wc -l <"$libs") system libraries, loader $loader)"
