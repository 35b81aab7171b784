package io.dplrf.sketch.files;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;

/**
 * The one owner of the released-epoch guard's format (docs/privacy/recovery.md §5): the last
 * epoch any release of a stream has covered, bound to the stream's instance label and
 * checksummed, so that a guard of another stream, a damaged one or a truncated one is named as
 * damage, never read as "nothing released yet".
 *
 * <p>A continual structure writes its guard (epoch 0) before the first of its state files, and
 * raises it, durably, before the first release of each epoch. So a structure's files without a
 * valid guard beside them are damage, and a restore refuses a snapshot older than the guard: it
 * would close released epochs again with their noise on possibly other updates.
 *
 * <pre>
 * Format version 1, big-endian (java.io.DataOutput):
 *
 *  field      type     notes
 *  ---------  -------  -----------------------------------------------
 *  magic      8 bytes  ASCII "DPLRFRM1"
 *  version    int32    1
 *  instance   UTF      the stream's instance label
 *  epoch      int32    the last epoch released, ≥ 0 (0: none yet)
 *  crc        int32    CRC32C of every byte before it
 * </pre>
 */
public final class ReleasedMark {
  private static final byte[] MAGIC = "DPLRFRM1".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 1;

  private ReleasedMark() {}

  /** The guard's bytes for {@code epoch} of the stream {@code instance}. */
  public static byte[] encode(String instance, int epoch) {
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must be >= 0. Provided value: " + epoch);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream d = new DataOutputStream(bytes)) {
      d.write(MAGIC);
      d.writeInt(VERSION);
      d.writeUTF(instance);
      d.writeInt(epoch);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array cannot fail
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes.toByteArray());
    int c = (int) crc.getValue();
    bytes.writeBytes(new byte[] {(byte) (c >>> 24), (byte) (c >>> 16), (byte) (c >>> 8), (byte) c});
    return bytes.toByteArray();
  }

  /**
   * Reads a guard whole: its epoch.
   *
   * @param file the guard's file, as errors name it
   * @throws DamagedFileException naming {@code file}: bad magic or version, truncated, checksum
   *     mismatch, bytes after it, or another stream's
   */
  public static int decode(InputStream in, Path file, String instance)
      throws DamagedFileException {
    CRC32C crc = new CRC32C();
    try {
      DataInputStream d = new DataInputStream(new CheckedInputStream(in, crc));
      byte[] magic = new byte[MAGIC.length];
      d.readFully(magic);
      if (!Arrays.equals(magic, MAGIC)) {
        throw new DamagedFileException(file, "not a released-epoch guard (bad magic number)",
            null);
      }
      int version = d.readInt();
      if (version != VERSION) {
        throw new DamagedFileException(file, "unsupported released-epoch guard version "
            + version + " (this build reads " + VERSION + ")", null);
      }
      String owner = d.readUTF();
      int epoch = d.readInt();
      int expected = (int) crc.getValue();
      if (new DataInputStream(in).readInt() != expected || in.read() != -1) {
        throw new DamagedFileException(file, "checksum mismatch", null);
      }
      if (!owner.equals(instance) || epoch < 0) {
        throw new DamagedFileException(file, "the released-epoch guard of stream " + owner
            + " (epoch " + epoch + "), not of " + instance, null);
      }
      return epoch;
    } catch (DamagedFileException e) {
      throw e;
    } catch (EOFException e) {
      throw new DamagedFileException(file, "truncated", e);
    } catch (IOException e) {
      throw new DamagedFileException(file, String.valueOf(e.getMessage()), e);
    }
  }

  /**
   * The restore's rule (recovery.md §5): a snapshot of epoch {@code snapshotEpoch} may be restored
   * beside a guard of epoch {@code guard} and state files whose newest belongs to epoch {@code
   * newestEpoch} only if the guard is there whenever a file is, the snapshot is not older than
   * the guard, and no file is newer than the one close a crash may have left unfinished after the
   * snapshot (epoch {@code snapshotEpoch + 1}).
   *
   * @param guard the guard's epoch, or −1 if there is no guard file
   * @param newestEpoch the newest epoch any state file of the structure belongs to, 0 if none
   * @throws DamagedFileException naming the guard, if it is missing while files are there
   * @throws IOException naming the file or the guard that shows the snapshot is too old
   */
  public static void requireRestorable(int guard, Path guardFile, int snapshotEpoch,
      long newestEpoch, Path newestFile) throws IOException {
    if (guard < 0 && newestEpoch > 0) {
      throw new DamagedFileException(guardFile, "missing, while state files of the stream up to"
          + " epoch " + newestEpoch + " are there (" + newestFile + "); the guard is written"
          + " before the first of them, so it was removed (restore it with the snapshot from the"
          + " same backup), or the directory was written by a dplrf build that kept no guard,"
          + " which this build refuses (finish that run with the build that wrote it, or start a"
          + " new run in an empty state directory; docs/operations.md §4)", null);
    }
    if (snapshotEpoch < guard) {
      throw new IOException("the snapshot is of epoch " + snapshotEpoch + ", but epochs up to "
          + guard + " have been released (" + guardFile + "): restoring it would close released"
          + " epochs again with the same noise on possibly other updates, a second view of them"
          + " (docs/privacy/recovery.md §5); restore the latest snapshot");
    }
    if (newestEpoch > snapshotEpoch + 1L) {
      throw new IOException(newestFile + " belongs to epoch " + newestEpoch + ", but the"
          + " snapshot is of epoch " + snapshotEpoch + ": the snapshot is older than the stream's"
          + " files, and epochs after it may have been released; restoring it would close them"
          + " again with the same noise (docs/privacy/recovery.md §5); restore the latest snapshot,"
          + " or a whole backup into an empty state directory (docs/operations.md §4)");
    }
  }
}
