package io.dplrf.deploy.io;

import java.nio.file.Path;
import java.util.Locale;
import java.util.OptionalInt;

/**
 * A matrix file read row by row, one row per user (row-level PCA, {@code dplrf pca}).
 *
 * <ul>
 *   <li><b>CSV</b>: one dense row per line, comma-separated finite numbers, no header; blank
 *       lines skipped, {@code #} starts a comment. Every row must have the same number of values:
 *       that of the first row, or {@code cols} when the caller fixes it.
 *   <li><b>Matrix Market</b> (chosen as in {@link MatrixInput}): rows are the file's rows; entries
 *       may come in any order, repeated entries add up, and rows without entries (all zero) are
 *       skipped, which changes nothing in AᵀA. The rows are assembled in memory (at most
 *       rows × cols doubles) before they are handed out, in row order.
 * </ul>
 *
 * <p>Errors are {@link InputException}s naming the file and line.
 */
public final class RowInput {
  /** Receives one row; the array is the sink's to keep. */
  @FunctionalInterface
  public interface RowSink {
    void accept(double[] row);
  }

  private final Path file;
  private final MatrixInput matrixMarket; // null for CSV

  private RowInput(Path file, MatrixInput matrixMarket) {
    this.file = file;
    this.matrixMarket = matrixMarket;
  }

  public static RowInput open(Path file) throws InputException {
    MatrixInput in = MatrixInput.open(file);
    return new RowInput(file, in.rows().isPresent() ? in : null);
  }

  /** The number of columns a Matrix Market file declares; empty for CSV. */
  public OptionalInt declaredCols() {
    return matrixMarket == null ? OptionalInt.empty() : matrixMarket.cols();
  }

  /** The number of values in the first data row of a CSV file (0 for a file without rows). */
  public int scanCols() throws InputException {
    if (matrixMarket != null) {
      return matrixMarket.cols().getAsInt();
    }
    try (LineReader in = LineReader.open(file)) {
      for (String s; (s = in.next()) != null; ) {
        String data = stripComment(s);
        if (!data.isBlank()) {
          return data.split(",", -1).length;
        }
      }
      return 0;
    }
  }

  /** Streams every row, of length {@code cols}, to {@code sink}. */
  public void forEachRow(int cols, RowSink sink) throws InputException {
    if (cols < 1) {
      throw new InputException(file + ": no columns: a row must have at least one value");
    }
    if (matrixMarket != null) {
      int m = matrixMarket.rows().getAsInt();
      double[][] rows = new double[m][];
      matrixMarket.forEach(m, cols, (i, j, delta) -> {
        if (rows[i] == null) {
          rows[i] = new double[cols];
        }
        rows[i][j] += delta;
      });
      for (int i = 0; i < m; i++) {
        if (rows[i] != null) {
          sink.accept(rows[i]);
          rows[i] = null;
        }
      }
      return;
    }
    try (LineReader in = LineReader.open(file)) {
      boolean first = true;
      for (String s; (s = in.next()) != null; ) {
        String data = stripComment(s);
        if (data.isBlank()) {
          continue;
        }
        String[] f = data.split(",", -1);
        if (first && hasLetter(data)) {
          throw in.error("not a data line: " + LineReader.quote(s)
              + " (CSV input has no header; every line is one row of comma-separated numbers)");
        }
        first = false;
        if (f.length != cols) {
          throw in.error("expected " + cols + " values per row, found " + f.length
              + (f.length > 0 && f.length <= 3 && cols > 3 ? " (dplrf pca reads dense rows, not i,j,delta lines)" : ""));
        }
        double[] row = new double[cols];
        for (int j = 0; j < cols; j++) {
          String t = f[j].trim();
          if (t.isEmpty()) {
            throw in.error("value " + (j + 1) + " is empty");
          }
          row[j] = in.value(t, false);
        }
        sink.accept(row);
      }
    }
  }

  private static String stripComment(String s) {
    int hash = s.indexOf('#');
    return hash < 0 ? s : s.substring(0, hash);
  }

  private static boolean hasLetter(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      // 'e'/'E' is an exponent, 'd'/'D' a Fortran exponent that value() accepts
      if (Character.isLetter(c) && "eEdD".indexOf(c) < 0) {
        return true;
      }
    }
    return s.toLowerCase(Locale.ROOT).matches(".*[a-z]{2,}.*");
  }
}
