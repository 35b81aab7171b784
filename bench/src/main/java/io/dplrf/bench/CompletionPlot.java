package io.dplrf.bench;

import io.dplrf.bench.CompletionBench.Cell;
import io.dplrf.bench.CompletionBench.Dataset;
import java.util.List;
import java.util.Locale;

/**
 * The completion benchmark's figure as a self-contained SVG (paper 004, Figure 2 layout): one
 * panel per dataset, test RMSE against ε on a log axis; methods without privacy are horizontal
 * dashed lines. Stateless.
 */
final class CompletionPlot {
  private static final int W = 330;
  private static final int H = 260;
  private static final int LEFT = 52;
  private static final int RIGHT = 12;
  private static final int TOP = 30;
  private static final int BOTTOM = 40;
  private static final String[] COLOURS = {"#d62728", "#1f77b4", "#9467bd", "#2ca02c",
      "#ff7f0e", "#7f7f7f"};
  private static final List<String> ORDER = List.of("private biased model", "DP item means",
      "per-user mean", "user + item biases", "item mean", "global mean");

  private CompletionPlot() {}

  static String svg(List<Dataset> sets, List<List<Cell>> cells, double[] eps) {
    int width = W * sets.size();
    int height = H + 40;
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
        + "height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">%n", width, height));
    s.append(String.format(Locale.ROOT,
        "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
    for (int p = 0; p < sets.size(); p++) {
      panel(s, p * W, sets.get(p).name(), cells.get(p), eps);
    }
    int x = 10;
    for (int m = 0; m < ORDER.size(); m++) {
      s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
          + "stroke=\"%s\" stroke-width=\"2\"%s/>", x, H + 20, x + 20, H + 20, COLOURS[m],
          m >= 2 ? " stroke-dasharray=\"5,3\"" : ""));
      s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", x + 24, H + 24,
          ORDER.get(m)));
      x += 30 + 7 * ORDER.get(m).length();
    }
    return s.append("</svg>\n").toString();
  }

  private static void panel(StringBuilder s, int x0, String title, List<Cell> cells,
      double[] eps) {
    double ymax = 0;
    for (Cell c : cells) {
      ymax = Math.max(ymax, c.mean());
    }
    ymax = niceCeil(ymax * 1.05);
    double lx0 = Math.log(eps[0]);
    double lx1 = Math.log(eps[eps.length - 1]);
    int pw = W - LEFT - RIGHT;
    int ph = H - TOP - BOTTOM;
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"16\" font-weight=\"bold\">%s</text>%n",
        x0 + LEFT, escape(title)));
    s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
        + "fill=\"none\" stroke=\"black\"/>%n", x0 + LEFT, TOP, pw, ph));
    for (int k = 0; k <= 4; k++) {
      double y = ymax * k / 4;
      int py = TOP + ph - (int) Math.round(ph * y / ymax);
      s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.2f"
          + "</text><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>%n",
          x0 + LEFT - 4, py + 4, y, x0 + LEFT, py, x0 + LEFT + pw, py));
    }
    for (double e : eps) {
      int px = x0 + LEFT + (int) Math.round(pw * (Math.log(e) - lx0) / (lx1 - lx0));
      s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s"
          + "</text>%n", px, TOP + ph + 14, trim(e)));
    }
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">epsilon"
        + " (delta = 1e-6)</text>%n", x0 + LEFT + pw / 2, TOP + ph + 30));
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" transform=\"rotate(-90 %d %d)\" "
        + "text-anchor=\"middle\">test RMSE</text>%n", x0 + 12, TOP + ph / 2, x0 + 12,
        TOP + ph / 2));
    for (int m = 0; m < ORDER.size(); m++) {
      String method = ORDER.get(m);
      List<Cell> line = cells.stream().filter(c -> c.method().equals(method)).toList();
      if (line.isEmpty()) {
        continue;
      }
      if (!Double.isFinite(line.get(0).epsilon())) {
        int py = TOP + ph - (int) Math.round(ph * Math.min(line.get(0).mean(), ymax) / ymax);
        s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
            + "stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"5,3\"/>%n", x0 + LEFT, py,
            x0 + LEFT + pw, py, COLOURS[m]));
        continue;
      }
      StringBuilder pts = new StringBuilder();
      for (Cell c : line) {
        int px = x0 + LEFT + (int) Math.round(pw * (Math.log(c.epsilon()) - lx0) / (lx1 - lx0));
        int py = TOP + ph - (int) Math.round(ph * Math.min(c.mean(), ymax) / ymax);
        pts.append(px).append(',').append(py).append(' ');
        s.append(String.format(Locale.ROOT, "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"%s\"/>",
            px, py, COLOURS[m]));
      }
      s.append(String.format(Locale.ROOT, "%n<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" "
          + "stroke-width=\"2\"/>%n", pts.toString().trim(), COLOURS[m]));
    }
  }

  private static double niceCeil(double v) {
    double p = Math.pow(10, Math.floor(Math.log10(v)));
    for (double f : new double[] {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
      if (f * p >= v) {
        return f * p;
      }
    }
    return 10 * p;
  }

  private static String trim(double e) {
    return e == Math.rint(e) ? String.valueOf((long) e) : String.valueOf(e);
  }

  private static String escape(String t) {
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
