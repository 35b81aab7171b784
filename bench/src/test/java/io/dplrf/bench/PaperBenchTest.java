package io.dplrf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code dplrf bench paper} prints and draws, at a small size. */
class PaperBenchTest {
  /**
   * Every panel prints its table; every release is rank k, so by Eckart–Young no additive error
   * ‖A − Ã‖_F − ‖A − [A]_k‖_F is below 0 (up to rounding); Theorem 5's term is v√(m ln(1/δ))/ε
   * with dplrf's default v; the figure draws one curve per method and panel.
   */
  @Test
  void run_printsEveryPanel_andNoRankKReleaseBeatsTheBestRankKError() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
    PaperBench bench = new PaperBench(new PrivacyParams(1, 1e-6), 1, 10, 1, 3, true);
    List<PaperBench.AlphaPanel> ap = List.of(new PaperBench.AlphaPanel("a", 60, 80, 2));
    List<PaperBench.LocalPanel> lp = List.of(new PaperBench.LocalPanel("e", 500, 8, 2));
    double[] alphas = {0.3, 0.5};
    int[] ks = {1, 3};
    List<PaperBench.Cell> cells = new ArrayList<>(bench.alpha(ap, alphas, out));
    cells.addAll(bench.local(lp, ks, out));
    String text = buf.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains("== (a) 60 x 80, k = 2"), text);
    assertTrue(text.contains("the same without noise (NOT private)"), text);
    assertTrue(text.contains("== (e) local: 500 users x 8"), text);
    assertEquals(2 * 6 + 2 * 3, cells.size(), text);
    for (PaperBench.Cell c : cells) {
      assertTrue(c.additive() >= -1e-9 * 1000, c + "\n" + text);
    }
    int v = SketchSizes.defaults(8, 8, 3, SketchSizes.DEFAULT_ALPHA).v();
    double theorem = cells.stream().filter(c -> c.method().equals("Theorem 5 additive term")
        && c.x() == 3).findFirst().orElseThrow().additive();
    assertEquals(v * Math.sqrt(500 * Math.log(1e6)) / 2, theorem, 1e-9 * theorem);
    String svg = PaperBench.svg(ap, alphas, lp, ks, cells);
    assertEquals(6 + 3, svg.split("<polyline").length - 1, svg);
  }
}
