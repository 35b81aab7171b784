package io.dplrf.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * README.md's quickstart "with your own data", run exactly as written: the {@code ```bash} block
 * between {@code <!-- quickstart -->} and {@code <!-- /quickstart -->}, by {@code bash -e}, in a
 * fresh directory whose {@code ./dplrf} hands over to the repository's launcher (so its relative
 * files, and the service's {@code ./state}, are the test's own). It must succeed within the
 * deadline, print the released S with k values, and report all k above the noise floor. It uses
 * the service's default ports (8080, 9464, 9092), as a reader's first run does. Skipped without
 * python3 and numpy or with those ports taken, except in CI ({@code DPLRF_CI}), whose
 * {@code .ci/run} installs python3-numpy.
 */
class QuickstartIT {
  private static final Pattern BLOCK = Pattern.compile(
      "<!-- quickstart -->.*?```bash\\n(.*?)```.*?<!-- /quickstart -->", Pattern.DOTALL);
  /** The broker start, a build of the jar if it is stale, 200,000 updates, one release. */
  private static final long DEADLINE_SECONDS = 600;

  @Test
  void readmeQuickstart_runsAsWritten_andPrintsTheReleasedS() throws Exception {
    Path root = RepoFiles.root();
    String readme = Files.readString(RepoFiles.file("README.md"), StandardCharsets.UTF_8);
    Matcher m = BLOCK.matcher(readme);
    assertTrue(m.find(), "README.md has a ```bash block between <!-- quickstart --> and"
        + " <!-- /quickstart -->");
    String block = m.group(1);
    int k = rankOf(block);
    require("python3 with numpy", python3WithNumpy());
    require("curl", Files.isExecutable(Path.of("/usr/bin/curl")));
    require("ports 8080, 9464 and 9092 free", free(8080) && free(9464) && free(9092));

    Path dir = Files.createTempDirectory("dplrf-it-quickstart");
    Path launcher = dir.resolve("dplrf");
    Files.writeString(launcher, "#!/usr/bin/env bash\nexec " + quote(root.resolve("dplrf"))
        + " \"$@\"\n");
    Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path script = Files.writeString(dir.resolve("quickstart.sh"), block);
    Path log = dir.resolve("quickstart.log");
    Process p = new ProcessBuilder("bash", "-e", script.toString()).directory(dir.toFile())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      if (!p.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
        fail("the quickstart did not finish in " + DEADLINE_SECONDS + " s:\n" + output(dir, log));
      }
      String out = Files.readString(log, StandardCharsets.UTF_8);
      assertEquals(0, p.exitValue(), "the quickstart's exit code:\n" + output(dir, log));
      Matcher s = Pattern.compile("(?m)^S = \\[([^\\]]*)\\]").matcher(out);
      assertTrue(s.find(), "a line 'S = [...]' in\n" + out);
      String[] values = s.group(1).strip().split("\\s+");
      assertEquals(k, values.length, "S has k = " + k + " values: " + s.group());
      for (String v : values) {
        double x = Double.parseDouble(v);
        assertTrue(Double.isFinite(x) && x >= 0, "a singular value: " + v);
      }
      // The stand-in's singular values (about 385 and 334 after 100,000 updates) are more than
      // twice the floor (149 at epoch 1): a reader's first release is signal, and says so.
      Matcher rank = Pattern.compile("(?m)reliable rank (\\d+)$").matcher(out);
      assertTrue(rank.find(), "a line '... reliable rank R' in\n" + out);
      assertEquals(k, Integer.parseInt(rank.group(1)), out);
    } finally {
      // A failed run may leave the service running: stop it and everything the script started.
      p.descendants().forEach(ProcessHandle::destroy);
      p.destroy();
      p.waitFor(60, TimeUnit.SECONDS);
      p.descendants().forEach(ProcessHandle::destroyForcibly);
    }
    RunningService.deleteTree(dir);
  }

  /** The block's {@code --rank K}. */
  private static int rankOf(String block) {
    Matcher r = Pattern.compile("--rank\\s+(\\d+)").matcher(block);
    assertTrue(r.find(), "the quickstart's serve gives --rank");
    return Integer.parseInt(r.group(1));
  }

  private static String output(Path dir, Path log) throws IOException {
    Path serve = dir.resolve("serve.log");
    return Files.readString(log) + (Files.exists(serve) ? "--- serve.log\n" + Files.readString(serve)
        : "");
  }

  private static void require(String what, boolean present) {
    if (present) {
      return;
    }
    if (System.getenv("DPLRF_CI") != null) {
      fail(what + " needed in CI (.ci/run installs python3-numpy and curl)");
    }
    Assumptions.abort(what + ": not here; README quickstart test skipped");
  }

  private static boolean python3WithNumpy() throws InterruptedException {
    try {
      Process p = new ProcessBuilder("python3", "-c", "import numpy").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false; // no python3
    }
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static String quote(Path p) {
    return "'" + p.toString().replace("'", "'\\''") + "'";
  }
}
