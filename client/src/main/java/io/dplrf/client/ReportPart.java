package io.dplrf.client;

import io.dplrf.sketch.params.Preconditions;

/**
 * One part of a local report: a {@code rows}×{@code cols} matrix, row-major, every entry on the
 * power-of-two noise grid γℤ of the part ({@code gamma}). A protocol's reports have its {@link
 * LocalProtocol#parts()}, in wire order.
 *
 * <p>{@link #exactBound()} is the largest magnitude an entry of a decoded report may have: 2⁶²·γ,
 * so that a server's {@link LocalAggregate} can sum 2⁶⁵ reports exactly in 128-bit integers
 * ({@link LocalReportCodec#decode} refuses more). An honest entry is far below it: the grid step
 * is about 2⁻³⁰ of the noise scale (sketch-store's PowerOfTwoGrid), so query plus a few noise
 * scales is 2³⁰–2³⁶ steps — unless ε is so large (≳ 10¹¹ at unit rows) that the query is 2³²
 * noise scales: such reports are summed in process (the offline simulation) but not accepted
 * from the wire.
 *
 * @param name the part's name in messages ("Y"; "Yr", "Z")
 * @param rows number of rows
 * @param cols number of columns
 * @param gamma the grid step γ, a power of two
 */
public record ReportPart(String name, int rows, int cols, double gamma) {
  public ReportPart {
    Preconditions.checkPositive("rows", rows);
    Preconditions.checkPositive("cols", cols);
    Preconditions.check(gamma > 0 && gamma == Math.scalb(1.0, Math.getExponent(gamma)), "gamma",
        "a power of two", gamma);
  }

  /** rows·cols. */
  public int size() {
    return rows * cols;
  }

  /** 2⁶²·γ: decoded entries beyond it are refused (class comment). */
  public double exactBound() {
    return Math.scalb(gamma, 62);
  }
}
