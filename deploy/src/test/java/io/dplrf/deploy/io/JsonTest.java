package io.dplrf.deploy.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  void strings_escapeQuotesBackslashControlAndNonAscii() {
    String s = "q\"b\\s/\b\f\n\r\t\u0000\u001f\u007f é\u2028😀";
    assertEquals("{\n  \"k\": \"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0000\\u001f\\u007f"
        + " \\u00e9\\u2028\\ud83d\\ude00\"\n}", Json.object().put("k", s).toString());
    assertEquals(s, ((Map<?, ?>) Json.parse(Json.object().put("k", s).toString())).get("k"));
  }

  @Test
  void toString_isPrettyPrintedWithTwoSpaceIndent() {
    String json = Json.object()
        .put("a", 1)
        .put("b", Json.array(1.5, "x", null, true))
        .put("empty", Json.object())
        .put("none", Json.array())
        .put("nested", Json.object().put("c", new double[] {0.25}))
        .toString();
    assertEquals("""
        {
          "a": 1,
          "b": [
            1.5,
            "x",
            null,
            true
          ],
          "empty": {},
          "none": [],
          "nested": {
            "c": [
              0.25
            ]
          }
        }""", json);
  }

  @Test
  void numbers_integersExactDoublesViaToString() {
    assertEquals("[\n  9223372036854775807,\n  1.0E-300,\n  -0.0,\n  0.1,\n  100.0\n]",
        Json.array(Long.MAX_VALUE, 1e-300, -0.0, 0.1f, 100.0).toString());
  }

  @Test
  void nonFiniteNumbers_areRejectedWhereAdded() {
    assertThrows(IllegalArgumentException.class, () -> Json.object().put("x", Double.NaN));
    assertThrows(IllegalArgumentException.class,
        () -> Json.array().add(Double.POSITIVE_INFINITY));
    assertThrows(IllegalArgumentException.class,
        () -> Json.object().put("s", new double[] {1, Double.NEGATIVE_INFINITY}));
    assertThrows(IllegalArgumentException.class,
        () -> Json.object().put("m", Map.of("k", List.of(Float.NaN))));
    assertThrows(IllegalArgumentException.class, () -> Json.object().put("o", new Object()));
  }

  @Test
  void writeThenParse_roundTrips() {
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put("eps", 0.5);
    inner.put("list", List.of(1, "two", false));
    String json = Json.object()
        .put("mechanism", "priv2")
        .put("k", 10)
        .put("sigma", new double[] {1.25, 3e10})
        .put("ok", true)
        .put("nothing", null)
        .put("inner", inner)
        .toString();
    Map<String, Object> expected = new LinkedHashMap<>();
    expected.put("mechanism", "priv2");
    expected.put("k", 10.0);
    expected.put("sigma", List.of(1.25, 3e10));
    expected.put("ok", true);
    expected.put("nothing", null);
    expected.put("inner", Map.of("eps", 0.5, "list", List.of(1.0, "two", false)));
    assertEquals(expected, Json.parse(json));
  }

  @Test
  void parse_acceptsValidJson() {
    assertEquals(List.of(-1.5e3, 0.0, "\u00e9/\ud83d\ude00", List.of(), Map.of()),
        Json.parse(" [ -1.5E+3 , 0 , \"\\u00E9\\/\\ud83d\\ude00\" , [ ] , { } ] \n"));
    assertNull(Json.parse("null"));
    assertEquals("", Json.parse("\"\""));
  }

  @Test
  void parse_rejectsInvalidJsonNamingTheOffset() {
    for (String bad : Arrays.asList("", "[1,]", "{\"a\":1,}", "{\"a\":1,\"a\":2}", "01", "1.",
        ".5", "+1", "NaN", "1e999", "\"\\x\"", "\"\\u12G4\"", "\"\\u+123\"", "\"a\nb\"", "[1 2]",
        "{a:1}", "tru", "[1] x", "\"unterminated", "[".repeat(600) + "]".repeat(600))) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> Json.parse(bad), bad);
      assertEquals(true, e.getMessage().startsWith("invalid JSON at offset "), e.getMessage());
    }
  }
}
