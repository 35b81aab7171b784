package io.dplrf.bench;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.deploy.io.SyntheticMatrix;
import io.dplrf.deploy.oneshot.LocalPcaOneShot;
import io.dplrf.deploy.oneshot.OneShot;
import io.dplrf.release.Errors;
import io.dplrf.release.Pca;
import io.dplrf.sketch.lra.Priv1Plan;
import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.PublicSeed;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Paper 002's experiments (§7, Figure 1), as far as its text describes them: matrices with i.i.d.
 * entries, the additive error on a log scale against α for dplrf's priv1, priv2 and priv2-sparse
 * beside Hardt and Roth's mechanism ({@link HardtRoth}) in the same run (panels a–d), and the
 * local mechanism's additive error against Theorem 5's as k grows (panels e–f).
 *
 * <p>The additive error of a rank-k release Ã is γ̂ = ‖A − Ã‖_F − ‖A − [A]_k‖_F: Problem 1's γ
 * with the multiplicative slack α set to 0 (so an upper estimate of the γ each α needs). Hardt
 * and Roth's rank-(k + p) output is cut to its best rank-k part, so that every release has
 * γ̂ ≥ 0. The paper's figure gives neither its sizes nor its entry law: the settings below are
 * ours (docs/benchmarks-paper.md). Test keys and a seeded {@link SplittableRandom} for the data:
 * nothing here is labelled private.
 */
public final class PaperBench {
  /** One of panels a–d: an m×n matrix with i.i.d. uniform [0, maxEntry] entries, rank k. */
  public record AlphaPanel(String id, int m, int n, int k) {}

  /** One of panels e–f: {@code users} rows of dimension d, i.i.d. uniform [0, 1/√d], at ε. */
  public record LocalPanel(String id, int users, int d, double epsilon) {}

  /** One measured cell: a method's mean errors over the runs at one x (α or k). */
  public record Cell(String panel, String method, double x, double error, double additive) {}

  static final List<SvgPlot.Line> LEGEND = List.of(
      new SvgPlot.Line("priv1", "#d62728", false),
      new SvgPlot.Line("Hardt-Roth, rank-one", "#d62728", true),
      new SvgPlot.Line("priv2", "#1f77b4", false),
      new SvgPlot.Line("Hardt-Roth, Frobenius", "#1f77b4", true),
      new SvgPlot.Line("priv2-sparse", "#2ca02c", false),
      new SvgPlot.Line("Hardt-Roth, entrywise l1", "#2ca02c", true),
      new SvgPlot.Line("local", "#ff7f0e", false),
      new SvgPlot.Line("Theorem 5 additive term", "#7f7f7f", true),
      new SvgPlot.Line("random basis", "#9467bd", true));

  /** The three dplrf mechanisms and the relation Hardt–Roth is calibrated for beside each. */
  private static final List<Mechanism> MECHANISMS =
      List.of(Mechanism.PRIV1, Mechanism.PRIV2, Mechanism.PRIV2_SPARSE);
  private static final List<String> HR_NAMES = List.of("Hardt-Roth, rank-one",
      "Hardt-Roth, Frobenius", "Hardt-Roth, entrywise l1");

  private final PrivacyParams privacy;
  private final double clip;
  private final double maxEntry;
  private final int runs;
  private final long seed;
  private final boolean noiseless;

  /**
   * @param noiseless also run every mechanism of panels a–d without noise (NOT private), to show
   *     how much of each additive error is the sketch's own approximation rather than noise
   */
  public PaperBench(PrivacyParams privacy, double clip, double maxEntry, int runs, long seed,
      boolean noiseless) {
    this.privacy = privacy;
    this.clip = clip;
    this.maxEntry = maxEntry;
    this.runs = runs;
    this.seed = seed;
    this.noiseless = noiseless;
  }

  /** An m×n matrix with i.i.d. uniform [0, max] entries (seeded synthetic data). */
  static Dense iidUniform(int m, int n, double max, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[] a = new double[m * n];
    for (int e = 0; e < a.length; e++) {
      a[e] = max * rnd.nextDouble();
    }
    return new Dense(m, n, a);
  }

  /** Panels a–d: prints each panel's table and returns its cells. */
  public List<Cell> alpha(List<AlphaPanel> panels, double[] alphas, PrintStream out)
      throws Exception {
    List<Cell> cells = new ArrayList<>();
    for (AlphaPanel p : panels) {
      long t0 = System.nanoTime();
      Dense a = iidUniform(p.m(), p.n(), maxEntry, seed + p.id().hashCode());
      double opt = Errors.bestRankKError(a, p.k());
      out.printf(Locale.ROOT, "%n== (%s) %d x %d, k = %d, i.i.d. uniform [0, %s] entries:"
          + " ||A||_F = %.1f, ||A - [A]_k||_F = %.1f%n", p.id(), p.m(), p.n(), p.k(),
          trim(maxEntry), SyntheticMatrix.frobeniusNorm(a), opt);
      out.printf(Locale.ROOT, "additive error ||A - A~||_F - ||A - [A]_k||_F, eps = %s,"
          + " delta = %s, C = %s, mean of %d run(s); HR = Hardt-Roth beside the dplrf mechanism"
          + " of the same relation, x = HR / dplrf%n", trim(privacy.epsilon()), privacy.delta(),
          trim(clip), runs);
      out.printf(Locale.ROOT, "%5s %4s %5s %3s | %9s %9s %6s | %9s %9s %6s | %9s %9s %6s%n",
          "alpha", "t", "v", "p", "priv1", "HR r-one", "x", "priv2", "HR frob", "x",
          "p2-sparse", "HR l1", "x");
      List<String> scales = new ArrayList<>();
      List<String> exact = new ArrayList<>();
      for (double alpha : alphas) {
        SketchSizes sizes = SketchSizes.of(p.m(), p.n(), p.k(), null, null, alpha);
        int over = HardtRoth.oversampling(p.k(), alpha);
        double[] ours = new double[3];
        double[] hr = new double[3];
        Object[] plans = new Object[3];
        for (int r = 0; r < runs; r++) {
          SecretKey key = SecretKey.forTesting(seed + 1000L * r + 1);
          for (int i = 0; i < 3; i++) {
            OneShot.Result res = OneShot.run(new OneShot.Request(MECHANISMS.get(i), sizes,
                privacy, clip, false), key, AccuracyBench.denseSource(a));
            ours[i] += Errors.frobeniusError(a, res.release().factorization()) / runs;
            plans[i] = res.plan();
            NeighbouringRelation rel = MECHANISMS.get(i).relation();
            hr[i] += new HardtRoth(rel, privacy, clip, p.k(), over, false)
                .run(a, key, "paper/" + p.id() + "/" + alpha + "/" + r + "/" + rel.cliName())
                .error(a) / runs;
          }
        }
        StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%5s %4d %5d %3d",
            trim(alpha), sizes.t(), sizes.v(), over));
        for (int i = 0; i < 3; i++) {
          double g = ours[i] - opt;
          double h = hr[i] - opt;
          cells.add(new Cell(p.id(), MECHANISMS.get(i).cliName(), alpha, ours[i], g));
          cells.add(new Cell(p.id(), HR_NAMES.get(i), alpha, hr[i], h));
          row.append(String.format(Locale.ROOT, " | %9.1f %9.1f %6.2f", g, h, h / g));
        }
        out.println(row);
        out.flush();
        if (noiseless) {
          StringBuilder e = new StringBuilder(String.format(Locale.ROOT, "%5s %4d %5d %3d",
              trim(alpha), sizes.t(), sizes.v(), over));
          SecretKey key = SecretKey.forTesting(seed + 999);
          for (int i = 0; i < 3; i++) {
            double g = Errors.frobeniusError(a, OneShot.run(new OneShot.Request(
                MECHANISMS.get(i), sizes, privacy, clip, true), key, AccuracyBench.denseSource(a))
                .release().factorization()) - opt;
            double h = new HardtRoth(MECHANISMS.get(i).relation(), privacy, clip, p.k(), over,
                true).run(a, key, "paper/exact/" + p.id() + "/" + alpha).error(a) - opt;
            e.append(String.format(Locale.ROOT, " | %9.1f %9.1f %6s", g, h, ""));
          }
          exact.add(e.toString());
        }
        scales.add(scales(alpha, sizes, (Priv1Plan) plans[0], (Priv2Plan) plans[1]));
      }
      if (noiseless) {
        out.println("the same without noise (NOT private): the sketches' own excess error");
        exact.forEach(out::println);
      }
      out.println("noise scales, dplrf's exact calibration against paper 002's Algorithm 1 line 1"
          + " (rho1 = sqrt((1+alpha) ln(1/delta))/eps, rho2 = sqrt(1+alpha) rho1, sigma_min ="
          + " 16 ln(1/delta) sqrt(t (1+alpha)/(1-alpha) ln(1/delta))/eps; the paper's for"
          + " (3 eps, 3 delta)):");
      out.printf(Locale.ROOT, "%5s | %9s %9s | %7s %7s %7s | %7s %7s | %7s%n", "alpha",
          "smin ours", "paper", "Yr", "Z(p1)", "rho1", "Y", "Z(p2)", "rho2");
      scales.forEach(out::println);
      out.printf(Locale.ROOT, "(panel %s: %.0f s)%n", p.id(), (System.nanoTime() - t0) / 1e9);
    }
    return cells;
  }

  /** One line of the noise-scale table: dplrf's σ of each sketch beside the paper's constants. */
  private String scales(double alpha, SketchSizes sizes, Priv1Plan p1, Priv2Plan p2) {
    double l = Math.log(1 / privacy.delta());
    double rho1 = Math.sqrt((1 + alpha) * l) / privacy.epsilon();
    double rho2 = Math.sqrt(1 + alpha) * rho1;
    double paperSigmaMin = Priv1Plan.paperSigmaMin(privacy, sizes.t(), alpha, clip);
    return String.format(Locale.ROOT, "%5s | %9.1f %9.1f | %7.2f %7.2f %7.2f | %7.2f %7.2f |"
        + " %7.2f", trim(alpha), p1.sigmaMin(), paperSigmaMin, p1.yrNoise().sigma(),
        p1.zNoise().sigma(), rho1, p2.yNoise().sigma(), p2.zNoise().sigma(), rho2);
  }

  /**
   * Panels e–f: the local mechanism as deployed (one client randomizer per row, a fresh public
   * seed per run, t = d), its additive error ‖A − AVVᵀ‖_F − ‖A − [A]_k‖_F for each k from one
   * aggregate per run, beside a random orthonormal V (the trivial release) and Theorem 5's additive
   * term v·√(m ln(1/δ))/ε with its O(·) read as 1 and v = dplrf's default sketch rows at
   * α = {@value SketchSizes#DEFAULT_ALPHA} (2.5·η/α², η = max(k, 1/α)).
   */
  public List<Cell> local(List<LocalPanel> panels, int[] ks, PrintStream out) throws Exception {
    List<Cell> cells = new ArrayList<>();
    for (LocalPanel p : panels) {
      long t0 = System.nanoTime();
      int d = p.d();
      Dense a = iidUniform(p.users(), d, 1 / Math.sqrt(d), seed + p.id().hashCode());
      PrivacyParams pp = new PrivacyParams(p.epsilon(), privacy.delta());
      out.printf(Locale.ROOT, "%n== (%s) local: %d users x %d, i.i.d. uniform [0, 1/sqrt(%d)]"
          + " entries (every row norm <= 1 = C), eps = %s, delta = %s, t = d, mean of %d run(s)%n",
          p.id(), p.users(), d, d, trim(p.epsilon()), privacy.delta(), runs);
      out.printf(Locale.ROOT, "additive error ||A - A V V^T||_F - ||A - [A]_k||_F; ||A||_F ="
          + " %.1f%n", SyntheticMatrix.frobeniusNorm(a));
      out.printf(Locale.ROOT, "%3s %9s | %9s %12s %13s | %9s %9s%n", "k", "opt", "local",
          "random basis", "Theorem 5", "local/Th5", "loc/rand");
      double[][] local = new double[ks.length][];
      for (int r = 0; r < runs; r++) {
        LocalPcaProtocol protocol =
            LocalPcaProtocol.of(PublicSeed.random(), d, d, clip, pp);
        LocalPcaOneShot.Result res = LocalPcaOneShot.run(protocol, ks[ks.length - 1], sink -> {
          for (int i = 0; i < a.rows(); i++) {
            sink.accept(java.util.Arrays.copyOfRange(a.data(), i * d, (i + 1) * d));
          }
        });
        Dense y = res.aggregate().sum(0);
        for (int i = 0; i < ks.length; i++) {
          if (local[i] == null) {
            local[i] = new double[2];
          }
          local[i][0] += Errors.projectionError(a, Pca.fromRangeSketch(y, ks[i]).v(), 2) / runs;
          local[i][1] += Errors.projectionError(a, PcaBench.randomOrthonormal(d, ks[i],
              seed + 7919L * r + ks[i]), 2) / runs;
        }
      }
      for (int i = 0; i < ks.length; i++) {
        int k = ks[i];
        double opt = Errors.bestRankKError(a, k);
        int v = SketchSizes.defaults(d, d, k, SketchSizes.DEFAULT_ALPHA).v();
        double theorem = v * Math.sqrt(p.users() * Math.log(1 / privacy.delta())) / p.epsilon();
        double g = local[i][0] - opt;
        double rand = local[i][1] - opt;
        cells.add(new Cell(p.id(), "local", k, local[i][0], g));
        cells.add(new Cell(p.id(), "random basis", k, local[i][1], rand));
        cells.add(new Cell(p.id(), "Theorem 5 additive term", k, Double.NaN, theorem));
        out.printf(Locale.ROOT, "%3d %9.2f | %9.3f %12.3f %13.1f | %9.2e %9.3f%n", k, opt, g,
            rand, theorem, g / theorem, g / rand);
        out.flush();
      }
      out.printf(Locale.ROOT, "(panel %s: %.0f s)%n", p.id(), (System.nanoTime() - t0) / 1e9);
    }
    return cells;
  }

  /** The figure: panels a–d (additive error against α), then e–f (against k), log y. */
  static String svg(List<AlphaPanel> alphaPanels, double[] alphas, List<LocalPanel> localPanels,
      int[] ks, List<Cell> cells) {
    List<SvgPlot.Panel> panels = new ArrayList<>();
    for (AlphaPanel p : alphaPanels) {
      panels.add(new SvgPlot.Panel("(" + p.id() + ") " + p.m() + " x " + p.n() + ", k = " + p.k(),
          "alpha", alphas, false, "additive error", true, series(p.id(), cells)));
    }
    double[] kx = java.util.Arrays.stream(ks).asDoubleStream().toArray();
    for (LocalPanel p : localPanels) {
      panels.add(new SvgPlot.Panel("(" + p.id() + ") local, " + p.users() + " x " + p.d()
          + ", eps = " + trim(p.epsilon()), "k", kx, false, "additive error", true,
          series(p.id(), cells)));
    }
    return SvgPlot.svg(panels, LEGEND, 3);
  }

  private static List<SvgPlot.Series> series(String panel, List<Cell> cells) {
    List<SvgPlot.Series> out = new ArrayList<>();
    for (SvgPlot.Line line : LEGEND) {
      List<Cell> c = cells.stream()
          .filter(x -> x.panel().equals(panel) && x.method().equals(line.name())).toList();
      if (!c.isEmpty()) {
        out.add(new SvgPlot.Series(line.name(), c.stream().mapToDouble(Cell::x).toArray(),
            c.stream().mapToDouble(Cell::additive).toArray()));
      }
    }
    return out;
  }

  static void writeSvg(Path file, String svg) throws java.io.IOException {
    Files.writeString(file, svg);
  }

  private static String trim(double e) {
    return e == Math.rint(e) ? String.valueOf((long) e) : String.valueOf(e);
  }
}
