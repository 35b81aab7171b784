package io.dplrf.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./dplrf} launcher, copied into a stand-in repository whose {@code mvnw} only writes
 * the jar and whose {@code java} only says it ran: what a first use prints when its stderr is a
 * file or a pipe, as in a log or CI.
 */
class LauncherTest {
  @TempDir Path root;

  private static void executable(Path file, String text) throws Exception {
    Files.writeString(file, text, StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** Runs the launcher with stderr into a file (not a terminal); returns stderr. */
  private String run() throws Exception {
    Path err = root.resolve("stderr.txt");
    ProcessBuilder pb = new ProcessBuilder("bash", root.resolve("dplrf").toString(), "version")
        .redirectError(err.toFile()).redirectOutput(root.resolve("stdout.txt").toFile());
    pb.environment().put("JAVA_HOME", root.resolve("jdk").toString());
    Process p = pb.start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher ends");
    assertEquals(0, p.exitValue(), Files.readString(err));
    assertEquals("java ran\n", Files.readString(root.resolve("stdout.txt")));
    return Files.readString(err, StandardCharsets.UTF_8);
  }

  @Test
  void aBuild_isAnnouncedOnStderr_evenWhenItIsNotATerminal() throws Exception {
    Files.copy(RepoFiles.file("dplrf"), root.resolve("dplrf"));
    Files.writeString(root.resolve("pom.xml"), "<project/>\n");
    Files.createDirectories(root.resolve("deploy/src/main/java"));
    Files.writeString(root.resolve("deploy/src/main/java/A.java"), "class A {}\n");
    executable(root.resolve("mvnw"), "#!/usr/bin/env bash\nmkdir -p deploy/target\n"
        + "touch deploy/target/dplrf.jar\n");
    Files.createDirectories(root.resolve("jdk/bin"));
    executable(root.resolve("jdk/bin/java"), "#!/usr/bin/env bash\necho java ran\n");

    String first = run();
    assertTrue(first.startsWith("dplrf: building " + root.toRealPath().resolve(
        "deploy/target/dplrf.jar") + " (sources changed or first use"), first);
    assertTrue(first.matches("(?s).*\ndplrf: built in [0-9]+ s\n"), first);
    assertEquals("", run(), "a fresh jar is not rebuilt, and nothing is said");
  }
}
