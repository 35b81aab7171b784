package io.dplrf.deploy.io;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON (RFC 8259) writer and parser.
 *
 * <p>Writing: {@code Json.object().put("k", 1).put("xs", Json.array(1.5, 2.5)).toString()} gives
 * pretty-printed JSON with a 2-space indent and keys in insertion order. Values may be null,
 * Boolean, String, Integer, Long, Short, Byte, BigInteger (written exactly), Double or Float
 * (written with {@code Double.toString}, NaN and infinities rejected when added), another
 * {@code Json}, a {@code Map} with String keys, an {@code Iterable}, {@code Object[]},
 * {@code double[]}, {@code int[]} or {@code long[]}. Strings are written pure ASCII: {@code "}, {@code \}
 * and control characters escaped, non-ASCII as {@code \}{@code uXXXX}.
 *
 * <p>Parsing: {@link #parse} returns Map (LinkedHashMap), List, Double, String, Boolean or null.
 *
 * <p>Not thread-safe while being built.
 */
public final class Json {
  private final Map<String, Object> fields; // non-null iff this is an object
  private final List<Object> items; // non-null iff this is an array

  private Json(Map<String, Object> fields, List<Object> items) {
    this.fields = fields;
    this.items = items;
  }

  public static Json object() {
    return new Json(new LinkedHashMap<>(), null);
  }

  public static Json array(Object... values) {
    Json a = new Json(null, new ArrayList<>());
    for (Object v : values) {
      a.add(v);
    }
    return a;
  }

  /** Sets {@code key} (replacing an earlier value in its original position); returns this. */
  public Json put(String key, Object value) {
    if (fields == null) {
      throw new IllegalStateException("put on a JSON array; use add");
    }
    if (key == null) {
      throw new IllegalArgumentException("JSON key must not be null");
    }
    check(value, key);
    fields.put(key, value);
    return this;
  }

  /** Appends {@code value} to this array; returns this. */
  public Json add(Object value) {
    if (items == null) {
      throw new IllegalStateException("add on a JSON object; use put");
    }
    check(value, "[" + items.size() + "]");
    items.add(value);
    return this;
  }

  @Override
  public String toString() {
    return write(this);
  }

  /** Pretty-prints any JSON value: Json, Map, Iterable, array, string, number, boolean, null. */
  public static String write(Object value) {
    check(value, "$");
    StringBuilder out = new StringBuilder();
    write(out, value, "");
    return out.toString();
  }

  private static void check(Object v, String where) {
    if (v instanceof Double d && !Double.isFinite(d) || v instanceof Float f && !Float.isFinite(f)) {
      throw new IllegalArgumentException("JSON number must be finite. Provided value: " + v
          + " at " + where);
    }
    if (v instanceof double[] a) {
      Arrays.stream(a).forEach(x -> check(x, where));
    } else if (v instanceof Map<?, ?> m) {
      m.forEach((k, x) -> {
        if (!(k instanceof String)) {
          throw new IllegalArgumentException("JSON keys must be strings. Provided value: " + k);
        }
        check(x, where + "." + k);
      });
    } else if (v instanceof Iterable<?> it) {
      it.forEach(x -> check(x, where + "[]"));
    } else if (v instanceof Object[] a) {
      Arrays.stream(a).forEach(x -> check(x, where + "[]"));
    } else if (!(v == null || v instanceof Boolean || v instanceof String || v instanceof Json
        || v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
        || v instanceof BigInteger || v instanceof Double || v instanceof Float
        || v instanceof int[] || v instanceof long[])) {
      throw new IllegalArgumentException("not a JSON value: " + v.getClass().getName()
          + " at " + where);
    }
  }

  private static void write(StringBuilder out, Object v, String indent) {
    if (v instanceof Json j) {
      if (j.fields != null) {
        writeObject(out, j.fields, indent);
      } else {
        writeArray(out, j.items, indent);
      }
    } else if (v instanceof Map<?, ?> m) {
      writeObject(out, m, indent);
    } else if (v instanceof Iterable<?> it) {
      writeArray(out, it, indent);
    } else if (v instanceof Object[] a) {
      writeArray(out, Arrays.asList(a), indent);
    } else if (v instanceof double[] a) {
      writeArray(out, Arrays.stream(a).boxed().toList(), indent);
    } else if (v instanceof int[] a) {
      writeArray(out, Arrays.stream(a).boxed().toList(), indent);
    } else if (v instanceof long[] a) {
      writeArray(out, Arrays.stream(a).boxed().toList(), indent);
    } else if (v instanceof String s) {
      quote(out, s);
    } else {
      out.append(v); // null, Boolean, integers exactly, finite Double/Float via toString
    }
  }

  private static void writeObject(StringBuilder out, Map<?, ?> m, String indent) {
    if (m.isEmpty()) {
      out.append("{}");
      return;
    }
    String inner = indent + "  ";
    String sep = "{\n";
    for (Map.Entry<?, ?> e : m.entrySet()) {
      out.append(sep).append(inner);
      quote(out, (String) e.getKey());
      out.append(": ");
      write(out, e.getValue(), inner);
      sep = ",\n";
    }
    out.append('\n').append(indent).append('}');
  }

  private static void writeArray(StringBuilder out, Iterable<?> it, String indent) {
    String inner = indent + "  ";
    String sep = "[\n";
    for (Object x : it) {
      out.append(sep).append(inner);
      write(out, x, inner);
      sep = ",\n";
    }
    out.append(sep.equals("[\n") ? "[]" : "\n" + indent + "]");
  }

  private static void quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c >= 0x7F) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /**
   * Parses one JSON value (RFC 8259, strict: no comments, no trailing commas, no duplicate keys,
   * no NaN). Numbers become Double. Throws IllegalArgumentException naming the offset.
   */
  public static Object parse(String text) {
    Parser p = new Parser(text);
    Object v = p.value(0);
    p.skipWhitespace();
    if (p.pos != text.length()) {
      throw p.error("unexpected text after the value");
    }
    return v;
  }

  private static final class Parser {
    private static final int MAX_DEPTH = 512;
    private final String s;
    private int pos;

    Parser(String s) {
      this.s = s;
    }

    Object value(int depth) {
      if (depth > MAX_DEPTH) {
        throw error("nesting deeper than " + MAX_DEPTH);
      }
      skipWhitespace();
      if (pos == s.length()) {
        throw error("unexpected end of input");
      }
      char c = s.charAt(pos);
      switch (c) {
        case '{': {
          pos++;
          Map<String, Object> m = new LinkedHashMap<>();
          if (consume('}')) {
            return m;
          }
          do {
            skipWhitespace();
            int at = pos;
            String key = string();
            expect(':');
            if (m.containsKey(key)) {
              pos = at;
              throw error("duplicate key " + key);
            }
            m.put(key, value(depth + 1));
          } while (consume(','));
          expect('}');
          return m;
        }
        case '[': {
          pos++;
          List<Object> list = new ArrayList<>();
          if (consume(']')) {
            return list;
          }
          do {
            list.add(value(depth + 1));
          } while (consume(','));
          expect(']');
          return list;
        }
        case '"':
          return string();
        case 't':
          return literal("true", Boolean.TRUE);
        case 'f':
          return literal("false", Boolean.FALSE);
        case 'n':
          return literal("null", null);
        default:
          return number();
      }
    }

    private Object literal(String word, Object v) {
      if (!s.startsWith(word, pos)) {
        throw error("unexpected character");
      }
      pos += word.length();
      return v;
    }

    private Double number() {
      int start = pos;
      consumeChar('-');
      if (!consumeChar('0') && digits() == 0) {
        pos = start;
        throw error("unexpected character");
      }
      if (consumeChar('.') && digits() == 0) {
        throw error("digit expected");
      }
      if (consumeChar('e') || consumeChar('E')) {
        if (!consumeChar('+')) {
          consumeChar('-');
        }
        if (digits() == 0) {
          throw error("digit expected");
        }
      }
      double d = Double.parseDouble(s.substring(start, pos));
      if (Double.isInfinite(d)) {
        pos = start;
        throw error("number out of range");
      }
      return d;
    }

    private int digits() {
      int start = pos;
      while (pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') {
        pos++;
      }
      return pos - start;
    }

    private String string() {
      if (!consumeChar('"')) {
        throw error("string expected");
      }
      StringBuilder b = new StringBuilder();
      while (true) {
        if (pos == s.length()) {
          throw error("unterminated string");
        }
        char c = s.charAt(pos++);
        if (c == '"') {
          return b.toString();
        } else if (c < 0x20) {
          pos--;
          throw error("unescaped control character in string");
        } else if (c != '\\') {
          b.append(c);
        } else if (pos == s.length()) {
          throw error("unterminated string");
        } else {
          char e = s.charAt(pos++);
          switch (e) {
            case '"', '\\', '/' -> b.append(e);
            case 'b' -> b.append('\b');
            case 'f' -> b.append('\f');
            case 'n' -> b.append('\n');
            case 'r' -> b.append('\r');
            case 't' -> b.append('\t');
            case 'u' -> {
              if (pos + 4 > s.length()) {
                throw error("bad \\u escape");
              }
              int u = 0;
              for (int end = pos + 4; pos < end; pos++) {
                int h = Character.digit(s.charAt(pos), 16);
                if (h < 0) {
                  throw error("bad \\u escape");
                }
                u = u * 16 + h;
              }
              b.append((char) u);
            }
            default -> {
              pos--;
              throw error("bad escape");
            }
          }
        }
      }
    }

    private boolean consumeChar(char c) {
      if (pos < s.length() && s.charAt(pos) == c) {
        pos++;
        return true;
      }
      return false;
    }

    private boolean consume(char c) {
      skipWhitespace();
      return consumeChar(c);
    }

    private void expect(char c) {
      if (!consume(c)) {
        throw error("'" + c + "' expected");
      }
    }

    void skipWhitespace() {
      while (pos < s.length() && " \t\n\r".indexOf(s.charAt(pos)) >= 0) {
        pos++;
      }
    }

    IllegalArgumentException error(String what) {
      return new IllegalArgumentException("invalid JSON at offset " + pos + ": " + what);
    }
  }
}
