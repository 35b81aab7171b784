package io.dplrf.sketch.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Owner-only creation of state files and directories, as {@code SecretKey} does for the key: the
 * snapshot and node files hold the noiseless sketches (noise is added only at release), so read
 * access to them is access to the data. On file systems without POSIX permissions the platform's
 * defaults apply (protect the directory by other means there).
 *
 * <p>The permissions are passed to the creating system call, so the process umask can only remove
 * bits; existing files and directories are never changed.
 */
public final class StateFiles {
  /** {@code rw-------} for files. */
  public static final Set<PosixFilePermission> FILE = EnumSet.of(
      PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
  /** {@code rwx------} for directories. */
  public static final Set<PosixFilePermission> DIRECTORY = EnumSet.of(
      PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
      PosixFilePermission.OWNER_EXECUTE);

  private StateFiles() {}

  /**
   * Like {@link Files#createDirectories}, but every directory it creates is {@code rwx------}
   * (existing ones are left as they are).
   *
   * @return {@code dir}
   */
  public static Path createDirectories(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return dir;
    }
    return posix(dir)
        ? Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(DIRECTORY))
        : Files.createDirectories(dir);
  }

  /**
   * A new, empty file {@code rw-------} open for writing. A file already at {@code file} (a
   * left-over temp file of an interrupted write, possibly with other permissions) is deleted
   * first, so the permissions are always those given at creation. The parent must exist.
   */
  public static FileChannel createForWriting(Path file) throws IOException {
    return createForWriting(file, Set.of());
  }

  /** As {@link #createForWriting(Path)}, with {@code extra} open options (e.g. O_DIRECT). */
  public static FileChannel createForWriting(Path file, Set<? extends OpenOption> extra)
      throws IOException {
    Files.deleteIfExists(file);
    FileAttribute<?>[] attrs = posix(file)
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FILE)}
        : new FileAttribute<?>[0];
    Set<OpenOption> options = new HashSet<>(extra);
    options.add(StandardOpenOption.CREATE_NEW);
    options.add(StandardOpenOption.WRITE);
    return FileChannel.open(file, options, attrs);
  }

  /**
   * fsync of a directory, so that a rename into it (or a file created in it) is itself durable —
   * a file fsynced and renamed can still vanish in a crash until its directory entry is on disk
   * (as Kafka's {@code Utils.flushDir}). Skipped on Windows, where a directory cannot be opened
   * for fsync. A regular file is refused rather than synced: opened read-only it would sync
   * without complaint, and a caller that passed the renamed file instead of its directory would
   * believe the rename durable.
   *
   * @throws NoSuchFileException if {@code dir} does not exist
   * @throws NotDirectoryException if {@code dir} is not a directory
   */
  public static void fsyncDirectory(Path dir) throws IOException {
    if (!Files.readAttributes(dir, BasicFileAttributes.class).isDirectory()) {
      throw new NotDirectoryException(dir.toString());
    }
    if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows")) {
      return;
    }
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  /** Whether the file store that holds (or will hold) {@code path} has POSIX permissions. */
  private static boolean posix(Path path) throws IOException {
    Path p = path.toAbsolutePath();
    while (p != null && !Files.exists(p)) {
      p = p.getParent();
    }
    return p != null
        && Files.getFileStore(p).supportsFileAttributeView(PosixFileAttributeView.class);
  }
}
