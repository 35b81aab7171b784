package io.dplrf.deploy.io;

import io.dplrf.sketch.files.StateFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The producer's own map from a user's ids (any token without a comma: MovieLens user and movie
 * ids, names) to the 0-based matrix indices the service takes, kept in a directory the producer
 * owns and never sent: {@code rows.ids} and {@code cols.ids}, one id per line, the id of index k
 * on line k + 1. An id seen for the first time takes the next free index, and the files are
 * extended, so that later files of the same stream map the same ids to the same indices.
 *
 * <p><b>Not private.</b> The files list which ids occur in the data, in the order they first
 * occur: raw data, like the input file. The service never sees them; a release's U and V are
 * indexed by matrix index, and labelling their rows with these ids is post-processing by whoever
 * holds the files (docs/user-guide.md, "Your own ids"). Publishing the files beside a release
 * would publish the set of ids present.
 *
 * <p>Not thread-safe.
 */
public final class IdMapping {
  /** The two files' names in the directory. */
  public static final String ROWS = "rows.ids";
  public static final String COLS = "cols.ids";

  private final Path dir;
  private final Side rows;
  private final Side cols;

  /** One dimension's ids, in index order. */
  private static final class Side {
    final String name;
    final int limit;
    final List<String> ids = new ArrayList<>();
    final Map<String, Integer> index = new HashMap<>();

    Side(String name, int limit) {
      this.name = name;
      this.limit = limit;
    }

    int indexOf(String id, String where) throws InputException {
      Integer k = index.get(id);
      if (k != null) {
        return k;
      }
      if (ids.size() >= limit) {
        throw new InputException(where + ": " + name + " id '" + id + "' is distinct " + name
            + " id number " + (limit + 1) + ", but the service has " + limit + " " + name
            + "s (--" + name + "s): declare the public size of the catalogue, not the count of"
            + " ids in the data");
      }
      index.put(id, ids.size());
      ids.add(id);
      return ids.size() - 1;
    }
  }

  private IdMapping(Path dir, int rows, int cols) {
    this.dir = dir;
    this.rows = new Side("row", rows);
    this.cols = new Side("col", cols);
  }

  /**
   * The mapping kept in {@code dir} (created, owner-only, if absent), taking at most {@code rows}
   * row ids and {@code cols} column ids ({@code Integer.MAX_VALUE}: no limit).
   */
  public static IdMapping open(Path dir, int rows, int cols) throws IOException, InputException {
    IdMapping m = new IdMapping(dir, rows, cols);
    m.read(m.rows, dir.resolve(ROWS));
    m.read(m.cols, dir.resolve(COLS));
    return m;
  }

  private void read(Side side, Path file) throws IOException, InputException {
    if (!Files.exists(file)) {
      return;
    }
    int line = 0;
    for (String id : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      line++;
      if (id.isEmpty() || side.index.containsKey(id)) {
        throw new InputException(file + ":" + line + ": an id file holds one distinct, non-empty"
            + " id per line");
      }
      side.indexOf(id, file + ":" + line);
    }
  }

  /** The row index of {@code id}, a new one if it is new. */
  public int row(String id, String where) throws InputException {
    return rows.indexOf(id, where);
  }

  /** The column index of {@code id}, a new one if it is new. */
  public int col(String id, String where) throws InputException {
    return cols.indexOf(id, where);
  }

  public int rowCount() {
    return rows.ids.size();
  }

  public int colCount() {
    return cols.ids.size();
  }

  /** Writes both files, each crash-safely (temp file, fsync, rename). */
  public void save() throws IOException {
    StateFiles.createDirectories(dir);
    write(dir.resolve(ROWS), rows.ids);
    write(dir.resolve(COLS), cols.ids);
  }

  private static void write(Path file, List<String> ids) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    StringBuilder b = new StringBuilder();
    for (String id : ids) {
      b.append(id).append('\n');
    }
    try (FileChannel ch = StateFiles.createForWriting(tmp)) {
      ByteBuffer buf = ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.UTF_8));
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      ch.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
