package io.dplrf.deploy.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Writes an output directory so that it appears complete or not at all (as Kafka's
 * {@code OffsetCheckpoint} does for one file): the body writes into a hidden sibling
 * {@code .NAME.tmp-RANDOM}, every file and directory in it is fsynced, and it is renamed onto the
 * target. If the body or anything after it fails, the temporary directory is deleted.
 *
 * <p>An existing empty target directory is replaced by the rename itself. A non-empty one is an
 * error unless {@code overwrite}: then it is renamed aside to {@code .NAME.old-RANDOM}, the new
 * one is renamed in, and the old one is deleted (renamed back if the second rename fails). Between
 * the two renames the target is briefly absent, never partial. Missing parent directories are
 * created. Needs a POSIX file system (rename onto an empty directory, fsync of directories).
 * A process killed mid-write leaves only a hidden {@code .NAME.tmp-*} sibling, never the target.
 */
public final class OutputDirectory {

  /** Writes the output files into {@code tmpDir}, which exists and is empty. */
  @FunctionalInterface
  public interface Writer {
    void write(Path tmpDir) throws IOException;
  }

  private OutputDirectory() {}

  public static void write(Path target, boolean overwrite, Writer body) throws IOException {
    Path abs = target.toAbsolutePath().normalize();
    Path parent = abs.getParent();
    if (parent == null) {
      throw new FileSystemException(target.toString(), null, "cannot use a root as output");
    }
    String name = abs.getFileName().toString();
    checkTarget(target, abs, overwrite); // fail before the (possibly long) body runs
    Files.createDirectories(parent);
    Path tmp = Files.createDirectory(parent.resolve("." + name + ".tmp-" + suffix()));
    try {
      body.write(tmp);
      syncTree(tmp);
      publish(target, abs, tmp, overwrite);
    } catch (Throwable t) {
      try {
        deleteTree(tmp);
      } catch (IOException | RuntimeException e) {
        t.addSuppressed(e);
      }
      throw t;
    }
    syncDirectory(parent);
  }

  private static void checkTarget(Path target, Path abs, boolean overwrite) throws IOException {
    if (!Files.exists(abs, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    if (!Files.isDirectory(abs, LinkOption.NOFOLLOW_LINKS)) {
      throw new FileAlreadyExistsException(target.toString(), null,
          "exists and is not a directory");
    }
    if (!overwrite && !isEmptyDirectory(abs)) {
      throw new FileAlreadyExistsException(target.toString(), null,
          "output directory exists and is not empty; not overwriting it");
    }
  }

  private static void publish(Path target, Path abs, Path tmp, boolean overwrite)
      throws IOException {
    checkTarget(target, abs, overwrite); // again: it may have appeared while the body ran
    if (!Files.exists(abs, LinkOption.NOFOLLOW_LINKS) || isEmptyDirectory(abs)) {
      try {
        Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE); // rename(2) replaces an empty dir
      } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
        throw new FileAlreadyExistsException(target.toString(), null,
            "output directory appeared while the output was written; not overwriting it");
      }
      return;
    }
    Path old = abs.resolveSibling("." + abs.getFileName() + ".old-" + suffix());
    Files.move(abs, old, StandardCopyOption.ATOMIC_MOVE);
    try {
      Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | RuntimeException e) {
      try {
        Files.move(old, abs, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException | RuntimeException restore) {
        e.addSuppressed(restore);
      }
      throw e;
    }
    try {
      deleteTree(old);
    } catch (IOException | RuntimeException ignored) {
      // The new output is in place; a hidden leftover of the old one is harmless.
    }
  }

  private static boolean isEmptyDirectory(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.findAny().isEmpty();
    }
  }

  private static String suffix() {
    return Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
  }

  /** fsyncs every file and directory under {@code root}, deepest first, {@code root} last. */
  private static void syncTree(Path root) throws IOException {
    List<Path> all;
    try (Stream<Path> s = Files.walk(root)) {
      all = s.sorted(Comparator.reverseOrder()).collect(Collectors.toList());
    }
    for (Path p : all) {
      if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
        syncDirectory(p);
      } else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
          ch.force(true);
        }
      }
    }
  }

  private static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    List<Path> all;
    try (Stream<Path> s = Files.walk(root)) {
      all = s.sorted(Comparator.reverseOrder()).collect(Collectors.toList());
    }
    for (Path p : all) {
      Files.deleteIfExists(p);
    }
  }
}
