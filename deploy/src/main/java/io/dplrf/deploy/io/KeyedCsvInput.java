package io.dplrf.deploy.io;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A CSV file of turnstile updates with a key column: fields 0, 1 and 2 are {@code i,j,delta}
 * (0-based, as {@link MatrixInput}'s CSV), and one column, named by a 0-based index or by its
 * name in a header line, is each update's record key, the privacy unit of the service's {@code
 * privacy-unit = key} (DESIGN.md, "Privacy model"). The key column may be one of the first three
 * (a user id that is also the row index) or an extra one; extra columns are otherwise ignored.
 *
 * <p>A header line is the first non-comment line when its first or second field holds a letter;
 * a column given by name needs one. Blank lines are skipped and {@code #} starts a comment, as in
 * {@link MatrixInput}. Fields are split on commas and trimmed; there is no quoting. An empty key
 * is refused with its line, never sent unkeyed: an update without its unit would escape the unit's
 * contribution bound. Keys are the file's bytes as they are. Every problem is an {@link
 * InputException} naming the file and line. Immutable; the file is streamed.
 */
public final class KeyedCsvInput {

  /** Receives one update and its key (non-empty bytes); 0-based indices. */
  @FunctionalInterface
  public interface Sink {
    void accept(byte[] key, int i, int j, double delta) throws InputException;
  }

  private final Path file;
  private final String column;
  /** The column by index; -1 when it is named (resolved against the header). */
  private final int index;

  private KeyedCsvInput(Path file, String column, int index) {
    this.file = file;
    this.column = column;
    this.index = index;
  }

  /**
   * @param column a 0-based column index or a column name of the header line
   * @throws IllegalArgumentException if the column is blank or a negative index
   */
  public static KeyedCsvInput open(Path file, String column) throws InputException {
    String c = column.strip();
    if (c.isEmpty()) {
      throw new IllegalArgumentException("--key-column must be a column name or a 0-based index."
          + " Provided value: " + LineReader.quote(column));
    }
    int index = -1;
    if (c.chars().allMatch(Character::isDigit)) {
      try {
        index = Integer.parseInt(c);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--key-column index is too large. Provided value: " + c);
      }
    } else if (c.startsWith("-") && c.substring(1).chars().allMatch(Character::isDigit)) {
      throw new IllegalArgumentException("--key-column index must be >= 0. Provided value: " + c);
    }
    try (LineReader in = LineReader.open(file)) {
      String first = in.next();
      if (first != null && first.startsWith(MatrixMarketHeader.BANNER)) {
        throw in.error("--key-column needs a CSV file (i,j,delta and a key column); this is"
            + " Matrix Market");
      }
    }
    return new KeyedCsvInput(file, c, index);
  }

  public Path file() {
    return file;
  }

  /** Every update with its key, in file order. */
  public void forEach(Sink sink) throws InputException {
    forEach(Integer.MAX_VALUE, Integer.MAX_VALUE, sink);
  }

  /**
   * Every update with its key, in file order, refusing (with its line) an index outside {@code
   * rows x cols} before the sink sees it.
   */
  public void forEach(int rows, int cols, Sink sink) throws InputException {
    try (LineReader in = LineReader.open(file)) {
      int key = index;
      boolean first = true;
      for (String s; (s = in.next()) != null; ) {
        int hash = s.indexOf('#');
        String data = hash < 0 ? s : s.substring(0, hash);
        if (data.isBlank()) {
          continue;
        }
        List<String> f = split(data);
        if (first) {
          first = false;
          boolean header = hasLetter(f.get(0)) || f.size() > 1 && hasLetter(f.get(1));
          if (header) {
            if (key < 0) {
              key = f.indexOf(column);
              if (key < 0) {
                throw in.error("--key-column " + column + ": no such column in the header"
                    + " (columns: " + String.join(", ", f) + ")");
              }
            } else if (key >= f.size()) {
              throw in.error("--key-column " + key + ": the header has " + f.size()
                  + " columns (0-based indices 0.." + (f.size() - 1) + ")");
            }
            continue;
          }
          if (key < 0) {
            throw in.error("--key-column " + column + " names a column, but the file has no"
                + " header line (its first line is data: " + LineReader.quote(s) + "); give the"
                + " column's 0-based index instead");
          }
        }
        if (f.size() < 3) {
          throw in.error("expected i,j,delta and a key column, found " + f.size() + " fields: "
              + LineReader.quote(s));
        }
        if (key >= f.size()) {
          throw in.error("no key column " + columnName(key) + ": the line has " + f.size()
              + " fields: " + LineReader.quote(s));
        }
        String k = f.get(key);
        if (k.isEmpty()) {
          throw in.error("empty key in column " + columnName(key) + " (--key-column): every"
              + " update needs its privacy unit");
        }
        int i = in.index(f.get(0), "row index");
        int j = in.index(f.get(1), "column index");
        double delta = in.value(f.get(2), false);
        if (i < 0 || j < 0) {
          throw in.error((i < 0 ? "row index " + i : "column index " + j)
              + " out of range: indices start at 0 (CSV indices are 0-based)");
        }
        if (i >= rows || j >= cols) {
          throw in.error((i >= rows ? "row index " + i + " out of range: valid is 0.." + (rows - 1)
              : "column index " + j + " out of range: valid is 0.." + (cols - 1))
              + " (CSV indices are 0-based)");
        }
        // Decoded as ISO-8859-1 by LineReader: encoding back gives the file's bytes.
        sink.accept(k.getBytes(StandardCharsets.ISO_8859_1), i, j, delta);
      }
    }
  }

  private String columnName(int key) {
    return index >= 0 ? Integer.toString(key) : column + " (" + key + ")";
  }

  private static List<String> split(String s) {
    List<String> out = new ArrayList<>();
    for (String f : s.split(",", -1)) {
      out.add(f.strip());
    }
    return out;
  }

  private static boolean hasLetter(String s) {
    return s.toLowerCase(Locale.ROOT).chars().anyMatch(Character::isLetter);
  }
}
