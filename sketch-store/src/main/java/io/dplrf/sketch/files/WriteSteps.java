package io.dplrf.sketch.files;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The steps of the crash-safe write of every state file (temp file, fsync, atomic
 * rename, fsync of the directory), named once so that the writers ({@code StateStore} for the
 * ingest snapshot, {@code NodeArchive} for closed-node files) announce each step as they reach it,
 * and a seam where tests stop the process or fail the write at any of them.
 *
 * <p>Per file, in order:
 *
 * <pre>
 *  step      reached when                                   a kill here leaves
 *  --------  ---------------------------------------------  --------------------------------------
 *  CREATED   the temp file exists, empty                    an empty temp file
 *  WRITTEN   every byte is written to the temp file         a complete temp file, maybe not on disk
 *  SYNCED    the temp file is fsynced                       a complete, durable temp file
 *  RENAMED   the temp file is renamed over the target       the new file, its name maybe not durable
 *  DURABLE   the directory is fsynced                       the new file, durable
 * </pre>
 *
 * <p>A reader never depends on a temp file: writers delete their temp file when a write fails,
 * and owners delete left-over temp files when they open their directory.
 *
 * <p>The default {@link Observer} does nothing. Tests install one ({@link #install}) that halts
 * the process at a chosen step (the crash-recovery tests) or throws {@code IOException("No space
 * left on device")} (the disk-full tests); production code never installs one.
 */
public final class WriteSteps {
  /** A step of one file's crash-safe write (table above). */
  public enum Step { CREATED, WRITTEN, SYNCED, RENAMED, DURABLE }

  /** Told of every step as it is reached, on the writing thread. */
  @FunctionalInterface
  public interface Observer {
    /**
     * @param file the file being written (its final name, not the temp file's)
     * @throws IOException to fail the write at this step, as the file system would
     */
    void reached(Step step, Path file) throws IOException;
  }

  private static final Observer NONE = (step, file) -> { };
  private static volatile Observer observer = NONE;

  private WriteSteps() {}

  /** Announces {@code step} of the write of {@code file}. */
  public static void reached(Step step, Path file) throws IOException {
    observer.reached(step, file);
  }

  /**
   * Installs {@code o} for every writer of this JVM until the returned handle is closed (tests
   * only: one at a time, restored to none on close).
   */
  public static Installed install(Observer o) {
    observer = Objects.requireNonNull(o, "observer");
    return () -> observer = NONE;
  }

  /** An installed observer; closing it removes it. */
  @FunctionalInterface
  public interface Installed extends AutoCloseable {
    @Override
    void close();
  }
}
