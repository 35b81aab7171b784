package io.dplrf.bench;

import io.dplrf.deploy.io.SyntheticMatrix;
import io.dplrf.release.Factorization;
import io.dplrf.release.Priv2Release;
import io.dplrf.release.Priv2Release.Profile;
import io.dplrf.release.Priv2Release.Route;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.lra.Priv2Sketches;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.randomness.SparseSignMatrix;
import io.dplrf.sketch.params.Mechanism;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * {@code dplrf bench release}: the time of each step of the Priv2 release (post-processing only;
 * no noise is drawn here) by the Gram route beside the Householder route it replaced, on the
 * same synthetic sketches in the same run, plus ‖A − Ã‖_F of both.
 *
 * <p>The sketches are shaped like {@code bench ingest --mechanism priv2-sparse}'s: A is rank k,
 * A = Σ_l s_l x_l y_lᵀ with near-unit Gaussian x_l, y_l and s_l from 10× down to 1× the noise's
 * spectral norm in Y (some directions near the floor, as in real releases); Y = AΦ + N1 with a
 * Gaussian Φ (n×t, N(0, 1/t)), Z = SA + N2 with the sparse sign S of the real mechanism, and
 * N1, N2 Gaussian of the σ that {@link Priv2Plan#calibrateSparse} gives for the tree's
 * ⌈log₂T⌉+1 compositions. The synthetic data and noise use {@link SplittableRandom}: nothing here
 * is private. The error is computed in factored form (A is never formed: m·n doubles).
 */
public final class ReleaseBench {
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  private final SketchSizes sizes;
  private final double epsilon;
  private final double delta;
  private final int epochs;
  private final int repeats;
  private final long seed;

  public ReleaseBench(SketchSizes sizes, double epsilon, double delta, int epochs, int repeats,
      long seed) {
    this.sizes = sizes;
    this.epsilon = epsilon;
    this.delta = delta;
    this.epochs = epochs;
    this.repeats = repeats;
    this.seed = seed;
  }

  /** One route's mean over the repeats. */
  public record Result(Route route, String yRoute, String xRoute, Map<String, Double> stepSeconds,
      double wallSeconds, double cpuSeconds, double error) {}

  public List<Result> run(PrintStream out) {
    int m = sizes.m();
    int n = sizes.n();
    int k = sizes.k();
    int t = sizes.t();
    int v = sizes.v();
    int levels = 32 - Integer.numberOfLeadingZeros(Math.max(1, epochs - 1)) + 1; // ⌈log₂T⌉+1
    Priv2Plan plan = Priv2Plan.calibrateSparse(new PrivacyParams(epsilon, delta), 1, sizes,
        Mechanism.SPARSITY, levels);
    double sy = plan.yNoise().sigma();
    double sz = plan.zNoise().sigma();
    out.printf("== Priv2 release, m = %d, n = %d, k = %d, t = %d, v = %d; noise sd Y %.4g, Z %.4g "
        + "(eps %s, delta %s, %d levels); %d repeats after a warm-up%n",
        m, n, k, t, v, sy, sz, epsilon, delta, levels, repeats);
    long t0 = System.nanoTime();
    Synthetic syn = synthetic(sy, sz);
    out.printf("synthetic sketches built in %.1f s; ||A||_F = %.6g%n",
        (System.nanoTime() - t0) / 1e9, Math.sqrt(syn.normSquared()));
    out.flush();

    Map<Route, List<Profile>> runs = new LinkedHashMap<>();
    Map<Route, double[]> cpu = new LinkedHashMap<>();
    Map<Route, Factorization> last = new LinkedHashMap<>();
    for (Route r : List.of(Route.HOUSEHOLDER, Route.GRAM)) {
      runs.put(r, new ArrayList<>());
      cpu.put(r, new double[1]);
      Priv2Release.profile(syn.sketches(), k, r); // warm-up (JIT)
    }
    for (int rep = 0; rep < repeats; rep++) {
      for (Route r : runs.keySet()) { // alternate, so drift in machine load hits both alike
        long c0 = OS.getProcessCpuTime();
        Profile p = Priv2Release.profile(syn.sketches(), k, r);
        cpu.get(r)[0] += (OS.getProcessCpuTime() - c0) / 1e9;
        runs.get(r).add(p);
        last.put(r, p.release().factorization());
      }
    }

    List<Result> results = new ArrayList<>();
    for (Route r : runs.keySet()) {
      List<Profile> ps = runs.get(r);
      Map<String, Double> steps = new LinkedHashMap<>();
      for (Profile p : ps) {
        p.steps().forEach(s -> steps.merge(s.name(), s.seconds() / ps.size(), Double::sum));
      }
      double wall = ps.stream().mapToDouble(Profile::seconds).sum() / ps.size();
      Profile p0 = ps.get(ps.size() - 1);
      Result res = new Result(r, p0.yRoute(), p0.xRoute(), steps, wall, cpu.get(r)[0] / ps.size(),
          Math.sqrt(Math.max(0, syn.errorSquared(last.get(r)))));
      results.add(res);
      out.printf("%n%s route (Y: %s, X: %s), mean of %d:%n", r.name().toLowerCase(Locale.ROOT),
          res.yRoute(), res.xRoute(), ps.size());
      steps.forEach((name, s) -> out.printf("  %-32s %8.3f s%n", name, s));
      out.printf("  %-32s %8.3f s   (process CPU %.3f s)%n", "total", wall, res.cpuSeconds());
    }
    Result base = results.get(0);
    Result ours = results.get(1);
    Factorization fg = last.get(Route.GRAM);
    Factorization fh = last.get(Route.HOUSEHOLDER);
    out.printf("%n%-22s %10s %10s %16s%n", "route", "wall s", "CPU s", "||A - A~||_F");
    for (Result r : results) {
      out.printf("%-22s %10.3f %10.3f %16.8g%n", r.route().name().toLowerCase(Locale.ROOT)
          + (r == base ? " (baseline)" : ""), r.wallSeconds(), r.cpuSeconds(), r.error());
    }
    out.printf("gram is %.2fx faster (wall), %.2fx less CPU; errors differ by %.2e relative;%n"
            + "the two releases: max |sigma_g - sigma_h| / sigma_1 = %.2e, sin of the largest "
            + "principal angle between their U <= %.2e, between their V <= %.2e%n",
        base.wallSeconds() / ours.wallSeconds(), base.cpuSeconds() / ours.cpuSeconds(),
        Math.abs(ours.error() - base.error()) / base.error(), sigmaGap(fg, fh),
        offSpan(fg.u(), fh.u()), offSpan(fg.v(), fh.v()));
    out.flush();
    return results;
  }

  /** A = X diag(s) Wᵀ (X m×k, W n×k, row-major) and its sketches. */
  private record Synthetic(double[] x, double[] s, double[] w, int m, int n, int k,
      Priv2Sketches sketches) {
    double normSquared() {
      return weighted(s, gram(x, x, m, k, k), s, gram(w, w, n, k, k));
    }

    /** ‖A − UΣVᵀ‖² = ‖A‖² − 2⟨A, UΣVᵀ⟩ + ‖Σ‖². */
    double errorSquared(Factorization f) {
      int r = f.k();
      double cross = weighted(s, gram(x, f.u().data(), m, k, r), f.s(),
          gram(w, f.v().data(), n, k, r));
      return normSquared() - 2 * cross + sumSquares(f.s());
    }
  }

  private Synthetic synthetic(double sy, double sz) {
    int m = sizes.m();
    int n = sizes.n();
    int k = sizes.k();
    int t = sizes.t();
    int v = sizes.v();
    SplittableRandom rnd = new SplittableRandom(seed);
    double[] x = scaled(SyntheticMatrix.normals(rnd, m * k), 1 / Math.sqrt(m));
    double[] w = scaled(SyntheticMatrix.normals(rnd, n * k), 1 / Math.sqrt(n));
    double floor = sy * (Math.sqrt(m) + Math.sqrt(t)); // ≈ ‖N1‖₂
    double[] s = new double[k];
    for (int l = 0; l < k; l++) {
      s[l] = floor * (10.0 - 9.0 * l / Math.max(1, k - 1));
    }
    // Y = X diag(s) (WᵀΦ) + N1, WᵀΦ (k×t) accumulated over the rows of Φ.
    double[] wPhi = new double[k * t];
    for (int j = 0; j < n; j++) {
      double[] phi = scaled(SyntheticMatrix.normals(rnd, t), 1 / Math.sqrt(t));
      for (int l = 0; l < k; l++) {
        double wl = w[j * k + l];
        for (int c = 0; c < t; c++) {
          wPhi[l * t + c] += wl * phi[c];
        }
      }
    }
    Dense y = new Dense(m, t);
    double[] yd = y.data();
    for (int i = 0; i < m; i++) {
      double[] noise = SyntheticMatrix.normals(rnd, t);
      for (int c = 0; c < t; c++) {
        double acc = sy * noise[c];
        for (int l = 0; l < k; l++) {
          acc += x[i * k + l] * s[l] * wPhi[l * t + c];
        }
        yd[i * t + c] = acc;
      }
    }
    // Z = (S X diag(s)) Wᵀ + N2 with the mechanism's sparse sign S (v×m).
    SparseSignMatrix sm = SparseSignMatrix.of(SecretKey.forTesting(seed), "bench/S", v, m,
        Mechanism.SPARSITY);
    double[] sx = new double[k * v]; // column-major v×k
    for (int i = 0; i < m; i++) {
      for (int l = 0; l < k; l++) {
        sm.addColumn(i, x[i * k + l] * s[l], sx, l * v);
      }
    }
    Dense z = new Dense(v, n);
    double[] zd = z.data();
    for (int b = 0; b < v; b++) {
      double[] noise = SyntheticMatrix.normals(rnd, n);
      for (int j = 0; j < n; j++) {
        double acc = sz * noise[j];
        for (int l = 0; l < k; l++) {
          acc += sx[l * v + b] * w[j * k + l];
        }
        zd[b * n + j] = acc;
      }
    }
    Priv2Sketches sk = new Priv2Sketches(m, n, y, z, sm, List.of(
        new NoiseScale("Y", sy, 1, (long) m * t), new NoiseScale("Z", sz, 1, (long) v * n)));
    return new Synthetic(x, s, w, m, n, k, sk);
  }

  private static double sigmaGap(Factorization a, Factorization b) {
    double max = 0;
    for (int l = 0; l < a.k(); l++) {
      max = Math.max(max, Math.abs(a.s()[l] - b.s()[l]));
    }
    return max / b.s()[0];
  }

  /**
   * ‖(I − bbᵀ)a‖_F for orthonormal a, b (rows×k): an upper bound on the sine of the largest
   * principal angle between their spans, formed directly (not as k − ‖bᵀa‖², which cancels).
   */
  private static double offSpan(Dense a, Dense b) {
    int rows = a.rows();
    int k = a.cols();
    double[] ba = gram(b.data(), a.data(), rows, k, k); // bᵀa
    double acc = 0;
    for (int i = 0; i < rows; i++) {
      for (int c = 0; c < k; c++) {
        double x = a.data()[i * k + c];
        for (int l = 0; l < k; l++) {
          x -= b.data()[i * k + l] * ba[l * k + c];
        }
        acc += x * x;
      }
    }
    return Math.sqrt(acc);
  }

  /** Σ_{l,q} a_l b_q P_lq Q_lq: ⟨X diag(a) Wᵀ, U diag(b) Vᵀ⟩ with P = XᵀU, Q = WᵀV. */
  private static double weighted(double[] a, double[] p, double[] b, double[] q) {
    double acc = 0;
    for (int l = 0; l < a.length; l++) {
      for (int c = 0; c < b.length; c++) {
        acc += a[l] * b[c] * p[l * b.length + c] * q[l * b.length + c];
      }
    }
    return acc;
  }

  /** Pᵀ Q (ka×kb) for row-major P (rows×ka) and Q (rows×kb). */
  private static double[] gram(double[] p, double[] q, int rows, int ka, int kb) {
    double[] g = new double[ka * kb];
    for (int i = 0; i < rows; i++) {
      for (int l = 0; l < ka; l++) {
        double x = p[i * ka + l];
        for (int c = 0; c < kb; c++) {
          g[l * kb + c] += x * q[i * kb + c];
        }
      }
    }
    return g;
  }

  private static double sumSquares(double[] s) {
    double acc = 0;
    for (double x : s) {
      acc += x * x;
    }
    return acc;
  }

  private static double[] scaled(double[] x, double f) {
    for (int i = 0; i < x.length; i++) {
      x[i] *= f;
    }
    return x;
  }
}
