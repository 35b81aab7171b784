package io.dplrf.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's {@code prometheus} package's binaries ({@code prometheus}, {@code promtool}), found on
 * the PATH. A test that needs one is skipped without it, except in CI ({@code DPLRF_CI}), whose
 * {@code .ci/run} installs the package.
 */
final class PrometheusTools {
  private PrometheusTools() {}

  /** The binary's path; skips (or, in CI, fails) the calling test without it. */
  static Path require(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, name);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    if (System.getenv("DPLRF_CI") != null) {
      fail(name + " needed in CI (.ci/run installs Debian's prometheus package)");
    }
    Assumptions.abort(name + ": not on the PATH here (Debian's prometheus package); skipped");
    return null;
  }
}
