package io.dplrf.deploy.http;

import static io.dplrf.deploy.http.Fixtures.get;
import static io.dplrf.deploy.http.Fixtures.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.metrics.Metrics;
import io.dplrf.release.UtilityReport;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class StatusPageTest {
  private static final Pattern RECT = Pattern.compile(
      "<rect class=\"(above|below)\" x=\"[0-9.]+\" y=\"([0-9.]+)\"");
  private static final Pattern FLOOR = Pattern.compile("<line id=\"floor\" [^>]* y1=\"([0-9.]+)\"");

  private static UtilityReport report(double floor, double... sv) {
    return new UtilityReport("priv2", sv.length, List.of(),
        List.of(new UtilityReport.FloorTerm("Y", floor, "f")), sv, 1, "e", List.of());
  }

  private static String plot(UtilityReport u) {
    StringBuilder h = new StringBuilder();
    StatusPage.plot(h, u);
    return h.toString();
  }

  /** (class, bar top y) per bar, left to right. */
  private static List<String[]> bars(String svg) {
    List<String[]> out = new ArrayList<>();
    Matcher m = RECT.matcher(svg);
    while (m.find()) {
      out.add(new String[] {m.group(1), m.group(2)});
    }
    return out;
  }

  @Test
  void everySingularValueIsABar_colouredByTheFloor_floorLineBetweenThem() {
    String svg = plot(report(5, 100, 10, 1, 0.1));
    List<String[]> bars = bars(svg);
    assertEquals(4, bars.size(), svg);
    assertEquals(List.of("above", "above", "below", "below"), bars.stream().map(b -> b[0]).toList());
    Matcher f = FLOOR.matcher(svg);
    assertTrue(f.find(), svg);
    double floorY = Double.parseDouble(f.group(1));
    double[] tops = bars.stream().mapToDouble(b -> Double.parseDouble(b[1])).toArray();
    // SVG y grows downwards: larger values have smaller y; log scale: equal ratios, equal steps.
    assertTrue(tops[0] < tops[1] && tops[1] < floorY && floorY < tops[2] && tops[2] < tops[3],
        java.util.Arrays.toString(tops) + " floor " + floorY);
    assertEquals(tops[1] - tops[0], tops[2] - tops[1], 0.11, "one decade, one step");
    assertTrue(svg.contains("noise floor 5<"), svg);
  }

  @Test
  void releaseUnderTheNoise_showsEveryBarBelowTheFloor() {
    List<String[]> bars = bars(plot(report(1000, 40, 30, 20)));
    assertEquals(3, bars.size());
    assertTrue(bars.stream().allMatch(b -> b[0].equals("below")));
  }

  @Test
  void page_showsEpochPrivacyAgeAndPlot_andEscapesText() {
    Status s = new Status(5, 8, 0.5, 1e-6, "priv2", "entrywise-l1 <b>", "one update <script>alert(1)</script> & |delta| <= 1",
        1.0, "update", false, "", Fixtures.AT, 3, 2, 2);
    ServedRelease r = Fixtures.release(5);
    String html = StatusPage.render(s, Optional.of(r), Fixtures.AT.plusSeconds(125));
    assertTrue(html.contains("5 <small>of 8</small>"), "epoch");
    assertTrue(html.contains("3 epochs left"), "epochs left");
    assertTrue(html.contains("ε = 0.5, δ = 1e-6</span>"), "privacy parameters");
    assertTrue(html.contains("data-age-ms=\"125000\">2 min ago<"), "release age");
    assertTrue(html.contains("id=\"sv-plot\""), "plot");
    assertFalse(html.contains("<script>alert"), "escaped");
    assertTrue(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; |delta| &lt;= 1"));
    assertTrue(html.contains("<span id=\"relation\">entrywise-l1 &lt;b&gt;</span>"), "relation");
    assertFalse(html.contains("id=\"exhausted\""));
  }

  @Test
  void page_beforeTheFirstRelease_andAfterTheLast() {
    Status waiting = new Status(0, 8, 1, 1e-6, "priv2", "one-entry", "n", 1, "update", false,
        "waiting for the first epoch to close", null, 3, 2, 2);
    String html = StatusPage.render(waiting, Optional.empty(), Instant.now());
    assertTrue(html.contains("id=\"no-release\""));
    assertFalse(html.contains("id=\"sv-plot\""));
    assertTrue(html.contains("waiting for the first epoch to close"));
    Status spent = new Status(8, 8, 1, 1e-6, "priv2", "one-entry", "n", 1, "update", true,
        "epoch 8 of 8 released: the privacy budget is spent", Fixtures.AT, 3, 2, 2);
    html = StatusPage.render(spent, Optional.of(Fixtures.release(8)), Fixtures.AT);
    assertTrue(html.contains("id=\"exhausted\""));
    assertTrue(html.contains("the privacy budget is spent"));
    assertTrue(html.contains("budget spent</span>"));
  }

  @Test
  void page_labelsAndCounts_readAsWords() {
    Status s = new Status(7, 8, 1, 1e-6, "priv2", "one-entry", "n", 1, "update", false, "",
        Fixtures.AT, 3, 2, 2);
    String html = StatusPage.render(s, Optional.of(Fixtures.release(7)), Fixtures.AT);
    assertTrue(html.contains("<div class=\"t\">Release age</div>"), html);
    assertTrue(html.contains("1 epoch left in the budget"), html);
    assertFalse(html.contains("1 epochs"), html);
    assertEquals("1 fit", StatusPage.plural(1, "fit"));
    assertEquals("0 fits", StatusPage.plural(0, "fit"));
  }

  /**
   * Local DP: (ε, δ) per report and T bounding releases, not a budget over epochs; the release's
   * report has no floor terms, so no floor line, no reliable rank and no bar called signal.
   */
  @Test
  void localRelease_perReportGuarantee_noFloorDrawn() {
    Status s = new Status(2, 1e-6, "local", "local", "one row, local", "report", false,
        "releasing after every epoch", new Status.Epochs(2, 5, Fixtures.AT, null, 1, 3, 3, 2,
            Status.Guarantee.PER_REPORT, "principal directions from local-DP reports"));
    UtilityReport noFloor = new UtilityReport("local", 2, List.of(), List.of(),
        new double[] {9, 4}, 0, "not computed: m is not released", List.of());
    ServedRelease r = new ServedRelease(1, 2, Fixtures.release(2).factorization(), noFloor,
        Fixtures.AT, java.util.Map.of());
    String html = StatusPage.render(s, Optional.of(r), Fixtures.AT);
    assertTrue(html.contains("principal directions from local-DP reports, 3 × 3, rank 2"), html);
    assertTrue(html.contains("3 releases left (T bounds the releases; the server spends no budget)"),
        html);
    assertTrue(html.contains("per report (local DP) · local · unit: report"), html);
    assertFalse(html.contains("over all 5 epochs"), html);
    assertFalse(html.contains("in the budget"), html);
    assertEquals(2, bars(html).size() + count(html, "<rect class=\"plain\""), html);
    assertTrue(bars(html).isEmpty(), "no bar is classed against a floor: " + html);
    assertFalse(html.contains("id=\"floor\""), html);
    assertFalse(html.contains("Reliable rank"), html);
    assertTrue(html.contains("id=\"no-floor\"") && html.contains("m is not released"), html);
  }

  private static int count(String text, String part) {
    int c = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
      c++;
    }
    return c;
  }

  @Test
  void numbers_threeSignificantDigits() {
    assertEquals("1e-6", StatusPage.num(1e-6));
    assertEquals("0.5", StatusPage.num(0.5));
    assertEquals("1230", StatusPage.num(1234.5));
    assertEquals("2.5e7", StatusPage.num(2.5e7));
    assertEquals("0", StatusPage.num(0));
    assertEquals("59 s ago", StatusPage.age(59_999));
    assertEquals("1 h 1 min ago", StatusPage.age(3_660_000));
  }

  @Test
  void servedAtTheRoot_asHtml_withASecurityPolicy() throws Exception {
    try (Metrics metrics = new Metrics()) {
      ReleaseCache cache = new ReleaseCache((a, b) -> {
        throw new IllegalStateException("no ranges");
      });
      cache.publish(Fixtures.release(4));
      try (PublicApi api = PublicApi.start(new InetSocketAddress("127.0.0.1", 0), cache,
          Fixtures::status, metrics)) {
        HttpResponse<byte[]> r = get(api.port(), "/");
        assertEquals(200, r.statusCode());
        assertEquals(StatusPage.CONTENT_TYPE, r.headers().firstValue("Content-Type").orElseThrow());
        assertTrue(r.headers().firstValue("Content-Security-Policy").orElseThrow().contains("default-src 'none'"));
        assertTrue(text(r).contains("id=\"sv-plot\""));
      }
    }
  }
}
