package io.dplrf.sketch.stats;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The worst change of a mechanism's released pre-noise values, found by brute force over
 * neighbouring inputs, independently of the derivations that state the sensitivity (issue 34).
 *
 * <p>The caller measures, on the real code, the response of every released value to each single
 * update +C at entry (i, j) in epoch τ (the basis), concatenated over everything released (every
 * tree node, or every epoch of an encoded stream), per noise part. The released values are linear
 * in the updates, so a neighbouring change D = Σ α_b·(basis b) moves them by Σ α_b·response_b;
 * this class enumerates such changes (every single update; random and structured spreads of an ℓ1
 * budget across entries and epochs, for a key's or a row's updates; Frobenius- or rank-one-bounded
 * changes within one epoch) and measures each part's change in the norm its calibration uses.
 *
 * <p>Grid rounding: a coordinate whose exact value changes by r ≠ 0 can change its rounded value
 * by up to γ·⌈|r|/γ⌉ (at least γ), depending on the other data; {@link Worst#rounded} is the norm
 * of those figures, the most the rounded query can move, and {@link Worst#coordinates} counts the
 * coordinates that can change at all (those with a non-zero Σ|α_b|·|response_b|).
 *
 * <p>Randomness here only chooses which changes to try (a fixed-seed {@link SplittableRandom});
 * nothing privacy-related is drawn. A random search can miss the worst change; the single updates
 * are enumerated exhaustively, and for linear maps on an ℓ1 ball they are the worst (Lemma 1 of
 * l1-units.md), which the spreads probe rather than assume.
 */
public final class BruteForceSensitivity {
  private BruteForceSensitivity() {}

  /** The norm a part's calibration uses: ℓ2 (Gaussian noise) or ℓ1 (Laplace noise). */
  public enum Norm { L2, L1 }

  /**
   * One noise part and what the plan states for it, joint over everything released.
   *
   * @param statedBase the stated sensitivity of the exact query
   * @param statedWithSlack the same plus the grid-rounding slack
   * @param statedCoordinates the coordinates over which the slack is charged
   * @param gamma the part's grid step
   * @param noiseScale σ (ℓ2) or the Laplace scale b (ℓ1)
   */
  public record Part(String name, Norm norm, double statedBase, double statedWithSlack,
      long statedCoordinates, double gamma, double noiseScale) {}

  /** A neighbouring change: coefficients over the basis (index {@link #index}), a family name. */
  public record Change(String family, String detail, double[] alpha) {}

  /** Basis index of the update at (i, j) in epoch τ (1-based) of an m×n matrix. */
  public static int index(int epoch, int i, int j, int m, int n) {
    return ((epoch - 1) * m + i) * n + j;
  }

  /** Every single update +C (the relation is symmetric in sign, norms are even). */
  public static List<Change> singles(int epochs, int m, int n) {
    List<Change> out = new ArrayList<>();
    for (int e = 1; e <= epochs; e++) {
      for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
          double[] a = new double[epochs * m * n];
          a[index(e, i, j, m, n)] = 1;
          out.add(new Change("single", "epoch " + e + " (" + i + "," + j + ")", a));
        }
      }
    }
    return out;
  }

  /**
   * Spreads of an ℓ1 budget C (Σ|α| = 1) across entries and epochs: random ones for a key's
   * updates (anywhere) and for a row's updates (one row, any epochs and columns), 2 to 12 atoms
   * with exponential weights and random signs, {@code draws} of each; and structured ones: one
   * cell spread evenly over every epoch with one sign and with alternating signs, one epoch's
   * budget spread evenly over every cell, and everything spread evenly.
   */
  public static List<Change> l1Spreads(int epochs, int m, int n, long seed, int draws) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int size = epochs * m * n;
    List<Change> out = new ArrayList<>();
    for (int d = 0; d < draws; d++) {
      int atoms = 2 + rnd.nextInt(11);
      double[] a = new double[size];
      for (int x = 0; x < atoms; x++) {
        a[rnd.nextInt(size)] += sign(rnd) * -Math.log(1 - rnd.nextDouble());
      }
      out.add(new Change("key spread", "draw " + d + ", seed " + seed, normalise(a)));
    }
    for (int d = 0; d < draws; d++) {
      int atoms = 2 + rnd.nextInt(11);
      int row = rnd.nextInt(m);
      double[] a = new double[size];
      for (int x = 0; x < atoms; x++) {
        a[index(1 + rnd.nextInt(epochs), row, rnd.nextInt(n), m, n)] +=
            sign(rnd) * -Math.log(1 - rnd.nextDouble());
      }
      out.add(new Change("row spread", "draw " + d + ", row " + row + ", seed " + seed,
          normalise(a)));
    }
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        double[] same = new double[size];
        double[] alternating = new double[size];
        for (int e = 1; e <= epochs; e++) {
          same[index(e, i, j, m, n)] = 1.0 / epochs;
          alternating[index(e, i, j, m, n)] = (e % 2 == 0 ? 1.0 : -1.0) / epochs;
        }
        out.add(new Change("cell over epochs", "(" + i + "," + j + ")", same));
        out.add(new Change("cell over epochs, alternating", "(" + i + "," + j + ")",
            alternating));
      }
    }
    for (int e = 1; e <= epochs; e++) {
      double[] a = new double[size];
      for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
          a[index(e, i, j, m, n)] = 1.0 / (m * n);
        }
      }
      out.add(new Change("epoch over cells", "epoch " + e, a));
    }
    double[] all = new double[size];
    java.util.Arrays.fill(all, 1.0 / size);
    out.add(new Change("everything", "uniform", all));
    return out;
  }

  /**
   * Changes with ‖D‖_F = C within one epoch (the Frobenius relation, one row record per unit):
   * per epoch, {@code draws} dense Gaussian directions and {@code draws} on 2–4 random entries.
   */
  public static List<Change> frobeniusInOneEpoch(int epochs, int m, int n, long seed, int draws) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Change> out = new ArrayList<>();
    for (int e = 1; e <= epochs; e++) {
      for (int d = 0; d < 2 * draws; d++) {
        double[] a = new double[epochs * m * n];
        boolean dense = d < draws;
        int atoms = dense ? m * n : 2 + rnd.nextInt(3);
        for (int x = 0; x < atoms; x++) {
          int cell = dense ? x : rnd.nextInt(m * n);
          a[index(e, cell / n, cell % n, m, n)] += gaussian(rnd);
        }
        scaleToL2(a);
        out.add(new Change(dense ? "frobenius dense" : "frobenius sparse",
            "epoch " + e + ", draw " + d + ", seed " + seed, a));
      }
    }
    return out;
  }

  /** Rank-one changes C·u wᵀ, |u| = |w| = 1, within one epoch: {@code draws} per epoch. */
  public static List<Change> rankOneInOneEpoch(int epochs, int m, int n, long seed, int draws) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Change> out = new ArrayList<>();
    for (int e = 1; e <= epochs; e++) {
      for (int d = 0; d < draws; d++) {
        double[] u = new double[m];
        double[] w = new double[n];
        for (int i = 0; i < m; i++) {
          u[i] = gaussian(rnd);
        }
        for (int j = 0; j < n; j++) {
          w[j] = gaussian(rnd);
        }
        scaleToL2(u);
        scaleToL2(w);
        double[] a = new double[epochs * m * n];
        for (int i = 0; i < m; i++) {
          for (int j = 0; j < n; j++) {
            a[index(e, i, j, m, n)] = u[i] * w[j];
          }
        }
        out.add(new Change("rank one", "epoch " + e + ", draw " + d + ", seed " + seed, a));
      }
    }
    return out;
  }

  /**
   * The worst of one part over the changes tried.
   *
   * @param base the largest change of the exact query, in the part's norm
   * @param baseAt the change that reached it
   * @param rounded the largest change of the rounded query (class comment)
   * @param coordinates the most coordinates one change can move
   */
  public record Worst(Part part, double base, String baseAt, double rounded, long coordinates) {}

  /**
   * The measurement: per part its worst, and the worst of the whole release in noise units:
   * max over changes of Σ over ℓ2 parts of (rounded/σ)², the squared GDP μ it spends, and of Σ
   * over ℓ1 parts of rounded/b, the pure ε it spends.
   */
  public record Result(List<Worst> parts, double worstMuSquared, String muAt, double worstEpsilon,
      String epsilonAt) {}

  /**
   * Measures {@code changes} against the basis {@code responses[b][part][coordinate]} (the
   * released values' change for update b of +C).
   */
  public static Result measure(double[][][] responses, List<Part> parts, List<Change> changes) {
    int p = parts.size();
    double[] base = new double[p];
    String[] baseAt = new String[p];
    double[] rounded = new double[p];
    long[] coords = new long[p];
    double worstMu2 = 0;
    String muAt = "";
    double worstEps = 0;
    String epsAt = "";
    for (Change ch : changes) {
      double mu2 = 0;
      double eps = 0;
      for (int q = 0; q < p; q++) {
        int len = responses[0][q].length;
        double[] r = new double[len];
        double[] reach = new double[len];
        for (int b = 0; b < ch.alpha().length; b++) {
          double a = ch.alpha()[b];
          if (a == 0) {
            continue;
          }
          double[] x = responses[b][q];
          for (int c = 0; c < len; c++) {
            r[c] += a * x[c];
            reach[c] += Math.abs(a * x[c]);
          }
        }
        Part part = parts.get(q);
        double g = part.gamma();
        double exact = 0;
        double round = 0;
        long touched = 0;
        for (int c = 0; c < len; c++) {
          if (reach[c] == 0) {
            continue;
          }
          touched++;
          double a = Math.abs(r[c]);
          double ra = Math.max(g, g * Math.ceil(a / g));
          if (part.norm() == Norm.L2) {
            exact += a * a;
            round += ra * ra;
          } else {
            exact += a;
            round += ra;
          }
        }
        if (part.norm() == Norm.L2) {
          exact = Math.sqrt(exact);
          round = Math.sqrt(round);
          mu2 += (round / part.noiseScale()) * (round / part.noiseScale());
        } else {
          eps += round / part.noiseScale();
        }
        if (exact > base[q]) {
          base[q] = exact;
          baseAt[q] = ch.family() + " " + ch.detail();
        }
        rounded[q] = Math.max(rounded[q], round);
        coords[q] = Math.max(coords[q], touched);
      }
      if (mu2 > worstMu2) {
        worstMu2 = mu2;
        muAt = ch.family() + " " + ch.detail();
      }
      if (eps > worstEps) {
        worstEps = eps;
        epsAt = ch.family() + " " + ch.detail();
      }
    }
    List<Worst> out = new ArrayList<>();
    for (int q = 0; q < p; q++) {
      out.add(new Worst(parts.get(q), base[q], baseAt[q], rounded[q], coords[q]));
    }
    return new Result(out, worstMu2, muAt, worstEps, epsAt);
  }

  /** One line of the report: brute worst against stated, and the coordinates. */
  public static String row(String combination, Worst w) {
    return String.format(java.util.Locale.ROOT,
        "%-44s %-3s brute %.9f stated %.9f stated/brute %.6f | rounded %.9f stated+slack %.9f |"
            + " coords %d of %d stated | worst at %s",
        combination, w.part().name(), w.base(), w.part().statedBase(),
        w.part().statedBase() / w.base(), w.rounded(), w.part().statedWithSlack(),
        w.coordinates(), w.part().statedCoordinates(), w.baseAt());
  }

  private static double sign(SplittableRandom rnd) {
    return rnd.nextBoolean() ? 1 : -1;
  }

  private static double gaussian(SplittableRandom rnd) {
    // Box–Muller; test-only choice of directions.
    return Math.sqrt(-2 * Math.log(1 - rnd.nextDouble())) * Math.cos(2 * Math.PI * rnd.nextDouble());
  }

  private static double[] normalise(double[] a) {
    double s = 0;
    for (double x : a) {
      s += Math.abs(x);
    }
    for (int k = 0; k < a.length; k++) {
      a[k] /= s;
    }
    return a;
  }

  private static void scaleToL2(double[] a) {
    double s = 0;
    for (double x : a) {
      s += x * x;
    }
    s = Math.sqrt(s);
    for (int k = 0; k < a.length; k++) {
      a[k] /= s;
    }
  }
}
