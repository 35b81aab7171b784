package io.dplrf.deploy.io;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads the lines of one text input file, counts them, parses their tokens strictly, and builds
 * the one-line error messages ({@code FILE:LINE: what}) that {@link MatrixInput} promises.
 *
 * <p>Decoded as ISO-8859-1 so that decoding never fails: the formats are ASCII, and a stray byte
 * in a comment must not stop the read; a stray byte in a number is reported as a malformed number.
 */
final class LineReader implements Closeable {
  private static final String UTF8_BOM_AS_LATIN1 = "\u00EF\u00BB\u00BF";
  private static final int QUOTE_MAX = 60;

  private final Path file;
  private final BufferedReader in;
  private long line; // 1-based number of the last line returned by next()

  private LineReader(Path file, BufferedReader in) {
    this.file = file;
    this.in = in;
  }

  static LineReader open(Path file) throws InputException {
    if (Files.isDirectory(file)) {
      throw new InputException(file + ": cannot read: is a directory");
    }
    try {
      return new LineReader(file, Files.newBufferedReader(file, StandardCharsets.ISO_8859_1));
    } catch (IOException e) {
      throw new InputException(file + ": cannot read: " + describe(e), e);
    }
  }

  /** The next line without its terminator, or null at the end of the file. */
  String next() throws InputException {
    String s;
    try {
      s = in.readLine();
    } catch (IOException e) {
      throw new InputException(file + ":" + (line + 1) + ": cannot read: " + describe(e), e);
    }
    if (s != null && ++line == 1 && s.startsWith(UTF8_BOM_AS_LATIN1)) {
      s = s.substring(UTF8_BOM_AS_LATIN1.length());
    }
    return s;
  }

  /** 1-based number of the last line read; at the end of the file, the number of lines. */
  long lineNumber() {
    return line;
  }

  /** An error about the last line read. */
  InputException error(String what) {
    return new InputException(file + ":" + Math.max(line, 1) + ": " + what);
  }

  /** A 0- or 1-based index: an optionally signed decimal integer that fits an int. */
  int index(String token, String name) throws InputException {
    if (!isInteger(token)) {
      throw error(name + " is not an integer: " + quote(token));
    }
    try {
      return Integer.parseInt(token);
    } catch (NumberFormatException e) {
      throw error(name + " " + token + " is out of range: larger than " + Integer.MAX_VALUE);
    }
  }

  /** A non-negative count from a Matrix Market size line. */
  long count(String token, String name) throws InputException {
    long v;
    try {
      v = isInteger(token) ? Long.parseLong(token) : -1;
    } catch (NumberFormatException e) {
      v = -1;
    }
    if (v < 0) {
      throw error(name + " must be a non-negative integer, found " + quote(token));
    }
    return v;
  }

  /**
   * A finite value. With {@code integerOnly}, an integer (Matrix Market {@code integer} field);
   * otherwise a decimal number, also with a Fortran {@code D} exponent as some old files have.
   * NaN and infinities are rejected whatever their spelling, as are literals that overflow.
   */
  double value(String token, boolean integerOnly) throws InputException {
    String t = token.startsWith("+") || token.startsWith("-") ? token.substring(1) : token;
    if (t.equalsIgnoreCase("nan") || t.equalsIgnoreCase("inf") || t.equalsIgnoreCase("infinity")) {
      throw error("value is not finite: " + quote(token));
    }
    if (integerOnly) {
      if (!isInteger(token)) {
        throw error("value is not an integer (the header says integer): " + quote(token));
      }
      try {
        return Long.parseLong(token);
      } catch (NumberFormatException e) {
        throw error("integer value out of range: " + quote(token));
      }
    }
    if (!isDecimalAlphabet(token)) {
      throw error("value is not a number: " + quote(token));
    }
    double v;
    try {
      v = Double.parseDouble(token.replace('d', 'e').replace('D', 'e'));
    } catch (NumberFormatException e) {
      throw error("value is not a number: " + quote(token));
    }
    if (!Double.isFinite(v)) {
      throw error("value is not finite (overflows a double): " + quote(token));
    }
    return v;
  }

  /**
   * A decimal value as {@link #value} reads it, except that NaN and infinities (any spelling, or
   * a literal that overflows) are returned as NaN or ±infinity instead of failing.
   */
  double valueOrNonFinite(String token) throws InputException {
    boolean negative = token.startsWith("-");
    String t = negative || token.startsWith("+") ? token.substring(1) : token;
    if (t.equalsIgnoreCase("nan")) {
      return Double.NaN;
    }
    if (t.equalsIgnoreCase("inf") || t.equalsIgnoreCase("infinity")) {
      return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    if (!isDecimalAlphabet(token)) {
      throw error("value is not a number: " + quote(token));
    }
    try {
      return Double.parseDouble(token.replace('d', 'e').replace('D', 'e'));
    } catch (NumberFormatException e) {
      throw error("value is not a number: " + quote(token));
    }
  }

  /** Quotes a token or line for an error message, shortened so the message stays one line. */
  static String quote(String s) {
    String t = s.length() > QUOTE_MAX ? s.substring(0, QUOTE_MAX) + "..." : s;
    return '"' + t.replaceAll("\\p{Cntrl}", "?") + '"';
  }

  /** Splits on runs of spaces and tabs; stores at most {@code out.length} tokens; returns the count. */
  static int splitWhitespace(String s, String[] out) {
    int n = 0;
    int i = 0;
    int len = s.length();
    while (true) {
      while (i < len && isBlank(s.charAt(i))) {
        i++;
      }
      if (i == len) {
        return n;
      }
      int start = i;
      while (i < len && !isBlank(s.charAt(i))) {
        i++;
      }
      if (n < out.length) {
        out[n] = s.substring(start, i);
      }
      n++;
    }
  }

  static boolean isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\f' || c == '\u000B';
  }

  private static boolean isInteger(String s) {
    int start = s.startsWith("+") || s.startsWith("-") ? 1 : 0;
    if (s.length() == start) {
      return false;
    }
    for (int i = start; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /** Characters of a decimal literal; Double.parseDouble then rejects malformed arrangements. */
  private static boolean isDecimalAlphabet(String s) {
    boolean digit = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= '0' && c <= '9') {
        digit = true;
      } else if ("+-.eEdD".indexOf(c) < 0) {
        return false;
      }
    }
    return digit;
  }

  private static String describe(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    String m = e.getMessage();
    return (m == null ? e.getClass().getSimpleName() : m).replaceAll("\\R", " ");
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException ignored) {
      // Only ever read from: nothing is lost by a failed close.
    }
  }
}
