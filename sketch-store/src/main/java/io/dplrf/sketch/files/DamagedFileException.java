package io.dplrf.sketch.files;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A state file that exists where it must but fails its integrity check — a checksum mismatch, a
 * truncation, a bad magic number, another node's label — or is missing. The message names the
 * file and the problem, so that whoever reads a log line, an HTTP error or a failed start knows
 * which file to restore, rather than blaming the file that referred to it.
 */
public final class DamagedFileException extends IOException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final String problem;

  /**
   * @param file the damaged file
   * @param problem what is wrong with it, e.g. "checksum mismatch"
   */
  public DamagedFileException(Path file, String problem, Throwable cause) {
    super(file + " is damaged: " + problem, cause);
    this.file = Objects.requireNonNull(file, "file");
    this.problem = Objects.requireNonNull(problem, "problem");
  }

  /** The damaged file. */
  public Path file() {
    return file;
  }

  /** What is wrong with it, without the file name. */
  public String problem() {
    return problem;
  }
}
