package io.dplrf.deploy.io;

import io.dplrf.deploy.io.MatrixMarketHeader.Field;
import io.dplrf.deploy.io.MatrixMarketHeader.Symmetry;
import java.nio.file.Path;
import java.util.Locale;
import java.util.OptionalInt;

/**
 * A matrix file read as a stream of turnstile updates {@code (i, j, delta)}, 0-based, one per
 * stored entry, in file order. The file is streamed, never held in memory, and may be read more
 * than once.
 *
 * <p>Formats, chosen by sniffing the first line for {@code %%MatrixMarket} (a {@code .mtx} file
 * without it is an error; any other file is CSV):
 *
 * <ul>
 *   <li><b>Matrix Market</b>, {@code coordinate} or {@code array}, field {@code real},
 *       {@code integer} or {@code pattern}, indices 1-based as the format says, {@code array}
 *       column-major. {@code pattern} entries are updates with delta 1 (adjacency matrices are
 *       commonly distributed that way). {@code symmetric} files store the lower triangle
 *       (row &ge; column); each off-diagonal entry also yields its mirror {@code (j, i, delta)},
 *       {@code skew-symmetric} ones {@code (j, i, -delta)}. An entry above the diagonal in such a
 *       file is an error rather than silently double-counted. {@code complex} and
 *       {@code hermitian} are rejected. Every stored value is an update, zeros included.
 *   <li><b>CSV</b>: lines {@code i,j,delta}, 0-based, whitespace around fields allowed, blank
 *       lines skipped, {@code #} starts a comment (whole line or trailing). No header line.
 * </ul>
 *
 * <p>Every problem is an {@link InputException} whose one-line message names the file and line.
 * Values must be finite. Instances are immutable; {@link #forEach} may run concurrently in
 * several threads, each on its own read of the file.
 */
public final class MatrixInput {

  /** Receives one update; 0-based indices. */
  @FunctionalInterface
  public interface UpdateSink {
    void accept(int i, int j, double delta);
  }

  /**
   * Receives one record and the 1-based line it came from, for {@link #forEachRecord}: the value
   * may be non-finite and an index negative (below the format's base).
   */
  @FunctionalInterface
  public interface RecordSink {
    void accept(long line, int i, int j, double value);
  }

  /** Matrix dimensions: rows and columns, both non-negative. */
  public record Dimensions(int rows, int cols) {
    public Dimensions {
      if (rows < 0 || cols < 0) {
        throw new IllegalArgumentException(
            "dimensions must be >= 0. Provided value: " + rows + "x" + cols);
      }
    }
  }

  private final Path file;
  private final MatrixMarketHeader header; // null for CSV

  private MatrixInput(Path file, MatrixMarketHeader header) {
    this.file = file;
    this.header = header;
  }

  /** Opens {@code file}, reading only its header; the entries are read by {@link #forEach}. */
  public static MatrixInput open(Path file) throws InputException {
    try (LineReader in = LineReader.open(file)) {
      String first = in.next();
      if (first != null && first.startsWith(MatrixMarketHeader.BANNER)) {
        try (LineReader again = LineReader.open(file)) {
          return new MatrixInput(file, MatrixMarketHeader.read(again));
        }
      }
      String name = String.valueOf(file.getFileName()).toLowerCase(Locale.ROOT);
      if (name.endsWith(".mtx")) {
        throw in.error("a .mtx file must start with a \"" + MatrixMarketHeader.BANNER
            + " matrix ...\" header line, found " + (first == null ? "an empty file"
                : LineReader.quote(first)));
      }
      return new MatrixInput(file, null);
    }
  }

  public Path file() {
    return file;
  }

  /** Number of rows if the file declares it (Matrix Market); empty for CSV. */
  public OptionalInt rows() {
    return header == null ? OptionalInt.empty() : OptionalInt.of(header.rows());
  }

  /** Number of columns if the file declares it (Matrix Market); empty for CSV. */
  public OptionalInt cols() {
    return header == null ? OptionalInt.empty() : OptionalInt.of(header.cols());
  }

  /**
   * The declared dimensions (Matrix Market, without reading the entries), or for CSV the largest
   * row and column index plus one, found by reading and validating the whole file ({@code 0x0}
   * for a file without entries).
   */
  public Dimensions scanDimensions() throws InputException {
    if (header != null) {
      return new Dimensions(header.rows(), header.cols());
    }
    int[] max = {-1, -1};
    forEach((i, j, delta) -> {
      max[0] = Math.max(max[0], i);
      max[1] = Math.max(max[1], j);
    });
    return new Dimensions(max[0] + 1, max[1] + 1);
  }

  /** Streams every update to {@code sink}; indices are checked against the declared size. */
  public void forEach(UpdateSink sink) throws InputException {
    read(sink, Integer.MAX_VALUE, Integer.MAX_VALUE);
  }

  /**
   * Streams every update to {@code sink}, rejecting any index outside {@code rows x cols} (and
   * outside the declared size of a Matrix Market file) before the sink sees it. Updates before
   * the offending line have been delivered when the exception is thrown.
   */
  public void forEach(int rows, int cols, UpdateSink sink) throws InputException {
    new Dimensions(rows, cols); // validates
    read(sink, rows, cols);
  }

  /**
   * Streams every record to {@code sink} with its line number, leaving the validity of values and
   * indices to the sink: a value spelled NaN or inf (or a literal that overflows a double) is
   * delivered as NaN or ±infinity, and an index below the format's base as a negative index,
   * instead of failing the read. Every problem of form still fails it with a one-line {@link
   * InputException}: a wrong number of fields, a token that is not a number, a header line, an
   * index above a Matrix Market file's declared size.
   */
  public void forEachRecord(RecordSink sink) throws InputException {
    read(sink, Integer.MAX_VALUE, Integer.MAX_VALUE, true);
  }

  private void read(UpdateSink sink, int rows, int cols) throws InputException {
    read((line, i, j, v) -> sink.accept(i, j, v), rows, cols, false);
  }

  private void read(RecordSink sink, int rows, int cols, boolean lenient)
      throws InputException {
    try (LineReader in = LineReader.open(file)) {
      if (header == null) {
        readCsv(in, sink, rows, cols, lenient);
      } else {
        readMatrixMarket(in, sink, Math.min(rows, header.rows()), Math.min(cols, header.cols()),
            lenient);
      }
    }
  }

  private static void readCsv(LineReader in, RecordSink sink, int rows, int cols,
      boolean lenient) throws InputException {
    String[] f = new String[3];
    boolean first = true;
    for (String s; (s = in.next()) != null; ) {
      int hash = s.indexOf('#');
      String data = hash < 0 ? s : s.substring(0, hash);
      if (data.isBlank()) {
        continue;
      }
      int n = splitCsv(data, f);
      if (first && (hasLetter(f[0]) || n > 1 && hasLetter(f[1]))) {
        throw in.error("not a data line: " + LineReader.quote(s)
            + " (CSV input has no header; every line is i,j,delta with 0-based indices)");
      }
      first = false;
      if (n != 3) {
        throw in.error("expected 3 fields i,j,delta, found " + n + ": " + LineReader.quote(s));
      }
      int i = in.index(f[0], "row index");
      int j = in.index(f[1], "column index");
      double delta = lenient ? in.valueOrNonFinite(f[2]) : in.value(f[2], false);
      checkRange(in, "row index", i, 0, rows, "CSV indices are 0-based", lenient);
      checkRange(in, "column index", j, 0, cols, "CSV indices are 0-based", lenient);
      sink.accept(in.lineNumber(), i, j, delta);
    }
  }

  private void readMatrixMarket(LineReader in, RecordSink sink, int rows, int cols,
      boolean lenient) throws InputException {
    MatrixMarketHeader h = MatrixMarketHeader.read(in);
    if (!h.equals(header)) {
      throw in.error("the header changed since the file was opened");
    }
    boolean pattern = h.field() == Field.PATTERN;
    boolean integer = h.field() == Field.INTEGER;
    int fields = !h.coordinate() ? 1 : pattern ? 2 : 3;
    String[] t = new String[fields];
    String note = "Matrix Market indices are 1-based";
    // Array position: 0-based row r of column c, column-major; triangles start at or below c.
    int first = h.symmetry() == Symmetry.SKEW_SYMMETRIC ? 1 : 0;
    int r = first;
    int c = 0;
    long seen = 0;
    for (String s; (s = in.next()) != null; ) {
      if (MatrixMarketHeader.isSkippable(s)) {
        continue;
      }
      if (seen == h.entries()) {
        throw in.error("too many entries: the size line declares " + h.entries());
      }
      int n = LineReader.splitWhitespace(s, t);
      if (n != fields) {
        throw in.error("expected " + fields + (fields == 1 ? " value" : " fields ")
            + (fields == 1 ? "" : pattern ? "(row col)" : "(row col value)")
            + " per line, found " + n + ": " + LineReader.quote(s));
      }
      int i;
      int j;
      double v;
      if (h.coordinate()) {
        i = in.index(t[0], "row index");
        j = in.index(t[1], "column index");
        v = pattern ? 1.0 : lenient && !integer ? in.valueOrNonFinite(t[2])
            : in.value(t[2], integer);
        checkRange(in, "row index", i, 1, rows, note, lenient);
        checkRange(in, "column index", j, 1, cols, note, lenient);
        i--;
        j--;
        if (h.symmetry() == Symmetry.SYMMETRIC && i < j
            || h.symmetry() == Symmetry.SKEW_SYMMETRIC && i <= j) {
          throw in.error("entry (" + (i + 1) + ", " + (j + 1) + ") is not below the diagonal: a "
              + h.symmetry().name().toLowerCase(Locale.ROOT).replace('_', '-')
              + " file stores only row " + (h.symmetry() == Symmetry.SYMMETRIC ? ">=" : ">")
              + " column");
        }
      } else {
        i = r;
        j = c;
        v = lenient && !integer ? in.valueOrNonFinite(t[0]) : in.value(t[0], integer);
        checkRange(in, "row index", i + 1, 1, rows, note + "; entry " + (seen + 1), false);
        checkRange(in, "column index", j + 1, 1, cols, note + "; entry " + (seen + 1), false);
        if (++r == h.rows()) {
          c++;
          r = h.symmetry() == Symmetry.GENERAL ? 0 : c + first;
        }
      }
      seen++;
      sink.accept(in.lineNumber(), i, j, v);
      if (h.symmetry() != Symmetry.GENERAL && i != j) {
        if (j >= rows || i >= cols) {
          throw in.error("mirrored entry (" + (j + 1) + ", " + (i + 1) + ") is outside "
              + rows + "x" + cols);
        }
        sink.accept(in.lineNumber(), j, i, h.symmetry() == Symmetry.SKEW_SYMMETRIC ? -v : v);
      }
    }
    if (seen < h.entries()) {
      throw in.error("too few entries: the size line declares " + h.entries() + ", found " + seen);
    }
  }

  /** With {@code lenient}, an index below the base passes (the caller drops it). */
  private static void checkRange(LineReader in, String name, int index, int base, int size,
      String note, boolean lenient) throws InputException {
    if (index < base && lenient) {
      return;
    }
    if (index < base) {
      throw in.error(name + " " + index + " out of range: indices start at " + base
          + " (" + note + ")");
    }
    if (index - base >= size) {
      String range = size == 0 ? "the matrix has no " + (name.startsWith("row") ? "rows" : "columns")
          : "valid is " + base + ".." + (size - 1L + base);
      throw in.error(name + " " + index + " out of range: " + range + " (" + note + ")");
    }
  }

  /** Splits on commas, trimming each field; stores at most {@code out.length}; returns the count. */
  private static int splitCsv(String s, String[] out) {
    int n = 0;
    int start = 0;
    while (true) {
      int comma = s.indexOf(',', start);
      int end = comma < 0 ? s.length() : comma;
      if (n < out.length) {
        out[n] = s.substring(start, end).trim();
      }
      n++;
      if (comma < 0) {
        return n;
      }
      start = comma + 1;
    }
  }

  private static boolean hasLetter(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isLetter(s.charAt(i))) {
        return true;
      }
    }
    return false;
  }
}
