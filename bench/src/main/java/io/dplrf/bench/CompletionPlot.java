package io.dplrf.bench;

import io.dplrf.bench.CompletionBench.Cell;
import io.dplrf.bench.CompletionBench.Dataset;
import java.util.ArrayList;
import java.util.List;

/**
 * The completion benchmark's figure (paper 004, Figure 2 layout), drawn by {@link SvgPlot}: one
 * panel per dataset, test RMSE against ε on a log axis; methods without privacy are horizontal
 * dashed lines. Stateless.
 */
final class CompletionPlot {
  private static final List<SvgPlot.Line> LEGEND = List.of(
      new SvgPlot.Line("private biased model", "#d62728", false),
      new SvgPlot.Line("DP item means", "#1f77b4", false),
      new SvgPlot.Line("per-user mean", "#9467bd", true),
      new SvgPlot.Line("user + item biases", "#2ca02c", true),
      new SvgPlot.Line("item mean", "#ff7f0e", true),
      new SvgPlot.Line("global mean", "#7f7f7f", true));

  private CompletionPlot() {}

  static String svg(List<Dataset> sets, List<List<Cell>> cells, double[] eps) {
    List<SvgPlot.Panel> panels = new ArrayList<>();
    for (int p = 0; p < sets.size(); p++) {
      List<SvgPlot.Series> series = new ArrayList<>();
      for (SvgPlot.Line method : LEGEND) {
        List<Cell> line = cells.get(p).stream()
            .filter(c -> c.method().equals(method.name())).toList();
        if (line.isEmpty()) {
          continue;
        }
        double[] y = line.stream().mapToDouble(Cell::mean).toArray();
        double[] x = Double.isFinite(line.get(0).epsilon())
            ? line.stream().mapToDouble(Cell::epsilon).toArray() : null; // null: a level line
        series.add(new SvgPlot.Series(method.name(), x, y));
      }
      panels.add(new SvgPlot.Panel(sets.get(p).name(), "epsilon (delta = 1e-6)", eps, true,
          "test RMSE", false, series));
    }
    return SvgPlot.svg(panels, LEGEND, panels.size());
  }
}
