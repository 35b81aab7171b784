package io.dplrf.bench;

import java.util.List;
import java.util.Locale;

/**
 * The benchmarks' figures as self-contained SVG: panels of curves against a shared legend, on a
 * log or linear x axis with ticks at the measured x values, and a linear y axis from 0 or a log
 * y axis in decades. A series without x values is a horizontal reference line (dashed). Used by
 * {@code bench completion --svg} and {@code bench paper --svg}. Stateless.
 */
final class SvgPlot {
  static final int W = 330;
  static final int H = 260;
  private static final int LEFT = 52;
  private static final int RIGHT = 12;
  private static final int TOP = 30;
  private static final int BOTTOM = 40;

  /** A legend entry: the series of that name are drawn in this colour, dashed or not. */
  record Line(String name, String colour, boolean dashed) {}

  /** One curve; {@code x} null: a horizontal line at {@code y[0]} across the panel. */
  record Series(String name, double[] x, double[] y) {}

  /**
   * One panel.
   *
   * @param xTicks the x values to label (the measured ones), ascending; the axis spans them
   * @param logX x positions by log(x)
   * @param logY a log y axis in decades (values ≤ 0 are not drawn); else linear from 0
   */
  record Panel(String title, String xLabel, double[] xTicks, boolean logX, String yLabel,
      boolean logY, List<Series> series) {}

  private SvgPlot() {}

  /** The panels in rows of {@code columns}, the legend (every {@link Line}) below them. */
  static String svg(List<Panel> panels, List<Line> legend, int columns) {
    int rows = (panels.size() + columns - 1) / columns;
    int width = W * Math.min(columns, panels.size());
    int legendRows = 1;
    int x = 10;
    for (Line l : legend) {
      int w = 30 + 7 * l.name().length();
      if (x > 10 && x + w > width) {
        legendRows++;
        x = 10;
      }
      x += w;
    }
    int height = H * rows + 20 * legendRows + 20;
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
        + "height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">%n", width, height));
    s.append(String.format(Locale.ROOT,
        "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
    for (int p = 0; p < panels.size(); p++) {
      panel(s, p % columns * W, p / columns * H, panels.get(p), legend);
    }
    x = 10;
    int y = H * rows + 20;
    for (Line l : legend) {
      int w = 30 + 7 * l.name().length();
      if (x > 10 && x + w > width) {
        y += 20;
        x = 10;
      }
      s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
          + "stroke=\"%s\" stroke-width=\"2\"%s/>", x, y, x + 20, y, l.colour(),
          l.dashed() ? " stroke-dasharray=\"5,3\"" : ""));
      s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", x + 24, y + 4,
          escape(l.name())));
      x += w;
    }
    return s.append("</svg>\n").toString();
  }

  private static void panel(StringBuilder s, int x0, int y0, Panel p, List<Line> legend) {
    YAxis ya = yAxis(p);
    double lx0 = xPos(p, p.xTicks()[0]);
    double lx1 = xPos(p, p.xTicks()[p.xTicks().length - 1]);
    int pw = W - LEFT - RIGHT;
    int ph = H - TOP - BOTTOM;
    int top = y0 + TOP;
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n",
        x0 + LEFT, y0 + 16, escape(p.title())));
    s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
        + "fill=\"none\" stroke=\"black\"/>%n", x0 + LEFT, top, pw, ph));
    for (double y : ya.ticks) {
      int py = top + ph - (int) Math.round(ph * ya.frac(y));
      s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s"
          + "</text><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>%n",
          x0 + LEFT - 4, py + 4, ya.label(y), x0 + LEFT, py, x0 + LEFT + pw, py));
    }
    for (double e : p.xTicks()) {
      int px = x0 + LEFT + (int) Math.round(pw * (xPos(p, e) - lx0) / (lx1 - lx0));
      s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s"
          + "</text>%n", px, top + ph + 14, trim(e)));
    }
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s"
        + "</text>%n", x0 + LEFT + pw / 2, top + ph + 30, escape(p.xLabel())));
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" transform=\"rotate(-90 %d %d)\" "
        + "text-anchor=\"middle\">%s</text>%n", x0 + 12, top + ph / 2, x0 + 12, top + ph / 2,
        escape(p.yLabel())));
    for (Line line : legend) {
      for (Series sr : p.series()) {
        if (!sr.name().equals(line.name())) {
          continue;
        }
        if (sr.x() == null) {
          if (!ya.drawable(sr.y()[0])) {
            continue;
          }
          int py = top + ph - (int) Math.round(ph * ya.frac(sr.y()[0]));
          s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
              + "stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"5,3\"/>%n", x0 + LEFT, py,
              x0 + LEFT + pw, py, line.colour()));
          continue;
        }
        StringBuilder pts = new StringBuilder();
        for (int i = 0; i < sr.x().length; i++) {
          if (!ya.drawable(sr.y()[i])) {
            continue;
          }
          int px = x0 + LEFT
              + (int) Math.round(pw * (xPos(p, sr.x()[i]) - lx0) / (lx1 - lx0));
          int py = top + ph - (int) Math.round(ph * ya.frac(sr.y()[i]));
          pts.append(px).append(',').append(py).append(' ');
          s.append(String.format(Locale.ROOT, "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"%s\"/>",
              px, py, line.colour()));
        }
        s.append(String.format(Locale.ROOT, "%n<polyline points=\"%s\" fill=\"none\" "
            + "stroke=\"%s\" stroke-width=\"2\"%s/>%n", pts.toString().trim(), line.colour(),
            line.dashed() ? " stroke-dasharray=\"5,3\"" : ""));
      }
    }
  }

  private static double xPos(Panel p, double x) {
    return p.logX() ? Math.log(x) : x;
  }

  /** The y axis of a panel: linear from 0 to a round value, or log over whole decades. */
  private record YAxis(boolean log, double lo, double hi, double[] ticks) {
    double frac(double y) {
      return log ? (Math.log10(Math.min(Math.max(y, lo), hi)) - Math.log10(lo))
          / (Math.log10(hi) - Math.log10(lo)) : Math.min(y, hi) / hi;
    }

    boolean drawable(double y) {
      return Double.isFinite(y) && (!log || y > 0);
    }

    String label(double y) {
      return log ? decade(y) : String.format(Locale.ROOT, "%.2f", y);
    }
  }

  private static YAxis yAxis(Panel p) {
    double max = 0;
    double min = Double.POSITIVE_INFINITY;
    for (Series sr : p.series()) {
      for (double y : sr.y()) {
        if (Double.isFinite(y) && y > 0) {
          max = Math.max(max, y);
          min = Math.min(min, y);
        }
      }
    }
    if (!p.logY()) {
      double ymax = niceCeil(max * 1.05);
      double[] ticks = new double[5];
      for (int k = 0; k <= 4; k++) {
        ticks[k] = ymax * k / 4;
      }
      return new YAxis(false, 0, ymax, ticks);
    }
    int d0 = (int) Math.floor(Math.log10(min));
    int d1 = Math.max(d0 + 1, (int) Math.ceil(Math.log10(max)));
    double[] ticks = new double[d1 - d0 + 1];
    for (int d = d0; d <= d1; d++) {
      ticks[d - d0] = Math.pow(10, d);
    }
    return new YAxis(true, ticks[0], ticks[ticks.length - 1], ticks);
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

  /** 10^d as 0.01, 0.1, 1, 10, 100, 1000, then 1e4, 1e5, … */
  private static String decade(double y) {
    int d = (int) Math.round(Math.log10(y));
    if (d >= 0 && d <= 3) {
      return String.valueOf((long) Math.pow(10, d));
    }
    return d < 0 && d >= -2 ? String.valueOf(Math.pow(10, d)) : "1e" + d;
  }

  private static String trim(double e) {
    return e == Math.rint(e) ? String.valueOf((long) e) : String.valueOf(e);
  }

  private static String escape(String t) {
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
