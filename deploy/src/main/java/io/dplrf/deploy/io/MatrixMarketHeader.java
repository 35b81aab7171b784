package io.dplrf.deploy.io;

import java.util.Locale;

/**
 * The banner and size line of a Matrix Market file (NIST, "The Matrix Market Exchange Formats:
 * Initial Design", Boisvert, Pozo and Remington, 1996):
 *
 * <pre>
 * %%MatrixMarket matrix coordinate|array real|integer|pattern general|symmetric|skew-symmetric
 * % comment lines
 * M N NZ      (coordinate: NZ entries "i j [value]", 1-based)
 * M N         (array: one value per line, column-major; symmetric ones store the lower triangle)
 * </pre>
 *
 * Keywords are case-insensitive as in NIST's {@code mmio.c}. {@code complex} and {@code hermitian}
 * are rejected: dplrf factorizes real matrices.
 */
record MatrixMarketHeader(
    boolean coordinate, Field field, Symmetry symmetry, int rows, int cols, long entries) {

  static final String BANNER = "%%MatrixMarket";

  enum Field { REAL, INTEGER, PATTERN }

  enum Symmetry { GENERAL, SYMMETRIC, SKEW_SYMMETRIC }

  private static final String EXPECTED =
      "expected header \"%%MatrixMarket matrix coordinate|array real|integer|pattern"
          + " general|symmetric|skew-symmetric\"";

  /** Reads the banner, comments and size line, leaving {@code in} at the first entry. */
  static MatrixMarketHeader read(LineReader in) throws InputException {
    String banner = in.next();
    if (banner == null) {
      throw in.error("empty file, " + EXPECTED);
    }
    String[] t = new String[6];
    int n = LineReader.splitWhitespace(banner, t);
    if (n == 0 || !t[0].equals(BANNER)) {
      throw in.error(EXPECTED + ", found " + LineReader.quote(banner));
    }
    if (n != 5) {
      throw in.error(EXPECTED + " (5 words), found " + LineReader.quote(banner));
    }
    String object = t[1].toLowerCase(Locale.ROOT);
    String format = t[2].toLowerCase(Locale.ROOT);
    String field = t[3].toLowerCase(Locale.ROOT);
    String symmetry = t[4].toLowerCase(Locale.ROOT);
    if (!object.equals("matrix")) {
      throw in.error("unsupported object \"" + t[1] + "\": only \"matrix\" is supported");
    }
    if (!format.equals("coordinate") && !format.equals("array")) {
      throw in.error("unknown format \"" + t[2] + "\": expected coordinate or array");
    }
    boolean coordinate = format.equals("coordinate");
    Field f = switch (field) {
      case "real", "double" -> Field.REAL;
      case "integer" -> Field.INTEGER;
      case "pattern" -> Field.PATTERN;
      case "complex" -> throw in.error("complex matrices are not supported: dplrf factorizes real"
          + " matrices (field must be real, integer or pattern)");
      default -> throw in.error("unknown field \"" + t[3] + "\": expected real, integer or pattern");
    };
    if (f == Field.PATTERN && !coordinate) {
      throw in.error("the pattern field is only valid with the coordinate format");
    }
    Symmetry s = switch (symmetry) {
      case "general" -> Symmetry.GENERAL;
      case "symmetric" -> Symmetry.SYMMETRIC;
      case "skew-symmetric" -> Symmetry.SKEW_SYMMETRIC;
      case "hermitian" -> throw in.error("hermitian matrices are complex and not supported");
      default -> throw in.error("unknown symmetry \"" + t[4]
          + "\": expected general, symmetric or skew-symmetric");
    };
    if (f == Field.PATTERN && s == Symmetry.SKEW_SYMMETRIC) {
      throw in.error("a pattern matrix cannot be skew-symmetric");
    }

    String size;
    do {
      size = in.next();
      if (size == null) {
        throw in.error("missing size line \"" + (coordinate ? "rows cols entries" : "rows cols")
            + "\" after the header");
      }
    } while (isSkippable(size));
    n = LineReader.splitWhitespace(size, t);
    int expected = coordinate ? 3 : 2;
    if (n != expected) {
      throw in.error("size line must have " + expected + " numbers ("
          + (coordinate ? "rows cols entries" : "rows cols") + "), found " + LineReader.quote(size));
    }
    int rows = in.index(t[0], "number of rows");
    int cols = in.index(t[1], "number of columns");
    if (rows < 0 || cols < 0) {
      throw in.error("matrix dimensions must be non-negative, found " + LineReader.quote(size));
    }
    if (s != Symmetry.GENERAL && rows != cols) {
      throw in.error(symmetry + " matrix must be square, the size line says " + rows + "x" + cols);
    }
    long m = rows;
    long entries;
    if (coordinate) {
      entries = in.count(t[2], "number of entries");
    } else {
      entries = switch (s) {
        case GENERAL -> m * cols;
        case SYMMETRIC -> m * (m + 1) / 2;
        case SKEW_SYMMETRIC -> m * (m - 1) / 2;
      };
    }
    return new MatrixMarketHeader(coordinate, f, s, rows, cols, entries);
  }

  /** Comment and blank lines may appear anywhere after the banner. */
  static boolean isSkippable(String line) {
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '%') {
        return true;
      }
      if (!LineReader.isBlank(c)) {
        return false;
      }
    }
    return true;
  }
}
