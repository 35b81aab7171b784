package io.dplrf.release;

import io.dplrf.release.UtilityReport.FloorTerm;
import io.dplrf.sketch.lra.NoiseScale;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The formulas behind {@link UtilityReport}, one method per mechanism. Every input is released
 * (singular values, shapes, the public sketching matrices' spectra) or public (NoiseScale), so
 * the report is post-processing.
 *
 * <p>Shared fact (Gordon; Bai–Yin): a p×q matrix G of i.i.d. N(0, σ²) entries has
 * E‖G‖₂ ≤ σ(√p + √q), and ‖G‖₂ concentrates there. If P (p′×p) and Q (q×q′) have orthonormal
 * rows/columns and are independent of G, then P G Q is again p′×q′ i.i.d. N(0, σ²) (rotation
 * invariance), so projected noise has floor σ(√p′ + √q′).
 */
final class Reports {
  private Reports() {}

  /**
   * Dense baseline: the noise N is m×n, floor σ(√m + √n). Predicted additive error √k·floor: when
   * the k signal directions stand above the floor, [A+N]_k − A_k ≈ P_U N + N P_V, whose Frobenius
   * norm is about σ√(k(m+n)) ≤ √k·σ(√m + √n) (heuristic, constant 1).
   */
  static UtilityReport dense(List<NoiseScale> noise, int m, int n, double[] s, int k) {
    List<FloorTerm> terms = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    NoiseScale ns = find(noise, "A+N", notes);
    if (ns == null && noise.size() == 1) {
      ns = noise.get(0);
      notes.remove(notes.size() - 1);
      notes.add("using the only noise scale supplied, '" + ns.sketch() + "', for A+N");
    }
    if (ns != null) {
      double f = ns.sigma() * (Math.sqrt(m) + Math.sqrt(n));
      terms.add(new FloorTerm(ns.sketch(), f, fmt("sigma(sqrt(m)+sqrt(n)) = %g(sqrt(%d)+sqrt(%d))",
          ns.sigma(), m, n)));
    }
    double floor = max(terms);
    return new UtilityReport("dense", k, noise, terms, s, Math.sqrt(k) * floor,
        "sqrt(k) * noiseFloor (heuristic, constant 1)", notes);
  }

  /**
   * Analyze Gauss (DTTZ 2014): the released AᵀA + E with E symmetric, its upper triangle i.i.d.
   * N(0, σ²). A d×d Wigner matrix has ‖E‖₂ → 2σ√d (the edge of the semicircle law; Füredi–Komlós
   * 1981, Bai–Yin 1988), and by Weyl's inequality every eigenvalue of AᵀA + E is within ‖E‖₂ of
   * AᵀA's, so the floor is 2σ√d in units of AᵀA's eigenvalues (S.npy of {@code dplrf pca}).
   * Predicted additive error √k·floor (heuristic, constant 1), as for the dense baseline.
   */
  static UtilityReport analyzeGauss(List<NoiseScale> noise, int d, double[] s, int k) {
    List<FloorTerm> terms = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    if (noise.size() == 1) {
      NoiseScale ns = noise.get(0);
      terms.add(new FloorTerm(ns.sketch(), 2 * ns.sigma() * Math.sqrt(d),
          fmt("2 sigma sqrt(d) = 2*%g*sqrt(%d)", ns.sigma(), d)));
    } else {
      notes.add("expected one noise scale (E), got " + noise.size() + ": no floor");
    }
    notes.add("values are eigenvalues of A^T A (squared singular values of A)");
    double floor = max(terms);
    return new UtilityReport("analyze-gauss", k, noise, terms, s, Math.sqrt(k) * floor,
        "sqrt(k) * noiseFloor (heuristic, constant 1)", notes);
  }

  /**
   * Priv1 (paper 002 Algorithm 1), two noisy sketches:
   *
   * <ul>
   *   <li>Yr = ΨÂ + N1 (t×(m+n)). Ψ has N(0, 1/t) entries, so ‖Ψx‖ ≈ ‖x‖ and ΨÂ's leading
   *       singular values track Â's; a direction of Â weaker than ‖N1‖₂ ≈ σ_Yr(√t + √(m+n)) is
   *       not reliably in row(Yr), hence not in V (step 3).
   *   <li>Z = SÂTᵀ + N2 (v×v). Step 5 sees N2 only as G = Usᵀ N2 Vt (r_s×r_t, i.i.d. N(0, σ_Z²)
   *       exactly: Us depends on S and Yc, Vt on T and Yr, neither on N2), then multiplies by
   *       Σs⁺ and Σt⁺. So X's noise has spectral norm ≲ σ_Z(√r_s + √r_t) / (σmin(SU)·σmin(VTᵀ)).
   *       (This is tighter than σ_Z·2√v for the unprojected v×v noise: only r_s×r_t of it
   *       reaches X.)
   * </ul>
   *
   * Predicted additive error √k·floor + σmin·√m: the second term is the padding σmin·I_m, since
   * ‖Â − [Â]_k‖_F ≤ ‖A − [A]_k‖_F + σmin√m.
   */
  static UtilityReport priv1(
      List<NoiseScale> noise, int m, int n, int t, double sigmaMin, double[] s, int k,
      int rs, double minSU, int rt, double minVT) {
    List<FloorTerm> terms = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    NoiseScale yr = find(noise, "Yr", notes);
    if (yr != null) {
      terms.add(new FloorTerm("Yr", yr.sigma() * (Math.sqrt(t) + Math.sqrt((double) m + n)),
          fmt("sigma_Yr(sqrt(t)+sqrt(m+n)) = %g(sqrt(%d)+sqrt(%d))", yr.sigma(), t, m + n)));
    }
    NoiseScale z = find(noise, "Z", notes);
    if (z != null) {
      double value = z.sigma() * (Math.sqrt(rs) + Math.sqrt(rt)) / (minSU * minVT);
      terms.add(new FloorTerm("Z", value,
          fmt("sigma_Z(sqrt(r_s)+sqrt(r_t))/(smin(SU)*smin(VT^T)) = %g(sqrt(%d)+sqrt(%d))/(%g*%g)",
              z.sigma(), rs, rt, minSU, minVT)));
    }
    double floor = max(terms);
    return new UtilityReport("priv1", k, noise, terms, s,
        Math.sqrt(k) * floor + sigmaMin * Math.sqrt(m),
        "sqrt(k) * noiseFloor + sigmaMin * sqrt(m) (heuristic, constant 1; excludes the "
            + "sketching factor (1+eps) on ||A - [A]_k||_F)", notes);
  }

  /**
   * Priv2 (paper 002 §3): Y = AΦ + N1 (m×t) with Φ of N(0, 1/t) entries, floor σ_Y(√m + √t) on
   * the directions U can capture; X = (SU)⁺ Z = Vs Σs⁺ Usᵀ (SA + N2), whose noise Usᵀ N2 is
   * r_s×n i.i.d. N(0, σ_Z²), so ‖noise(X)‖₂ ≲ σ_Z(√r_s + √n)/σmin(SU). The same floor holds
   * for the sparse embeddings of priv2-sparse (NoiseFloors); {@code mechanism} names which.
   */
  static UtilityReport priv2(String mechanism,
      List<NoiseScale> noise, int m, int n, int t, double[] s, int k, int rs, double minSU) {
    List<String> notes = new ArrayList<>();
    List<FloorTerm> terms = priv2Floor(noise, m, n, t, rs, minSU, notes);
    double floor = max(terms);
    return new UtilityReport(mechanism, k, noise, terms, s, Math.sqrt(k) * floor,
        "sqrt(k) * noiseFloor (heuristic, constant 1; excludes the sketching factor (1+eps) "
            + "on ||A - [A]_k||_F)", notes);
  }

  /**
   * The floor terms of {@link #priv2}: Y's σ_Y(√m + √t) and Z's σ_Z(√r_s + √n)/σmin(SU). Shared
   * with {@link NoiseFloors#priv2}, so that a plan made before any data and a release compute
   * their floor with one formula.
   */
  static List<FloorTerm> priv2Floor(List<NoiseScale> noise, int m, int n, int t, int rs,
      double minSU, List<String> notes) {
    List<FloorTerm> terms = new ArrayList<>();
    NoiseScale y = find(noise, "Y", notes);
    if (y != null) {
      terms.add(new FloorTerm("Y", y.sigma() * (Math.sqrt(m) + Math.sqrt(t)),
          fmt("sigma_Y(sqrt(m)+sqrt(t)) = %g(sqrt(%d)+sqrt(%d))", y.sigma(), m, t)));
    }
    NoiseScale z = find(noise, "Z", notes);
    if (z != null) {
      terms.add(new FloorTerm("Z", z.sigma() * (Math.sqrt(rs) + Math.sqrt(n)) / minSU,
          fmt("sigma_Z(sqrt(r_s)+sqrt(n))/smin(SU) = %g(sqrt(%d)+sqrt(%d))/%g",
              z.sigma(), rs, n, minSU)));
    }
    return terms;
  }

  private static NoiseScale find(List<NoiseScale> noise, String name, List<String> notes) {
    for (NoiseScale ns : noise) {
      if (ns.sketch().equals(name)) {
        return ns;
      }
    }
    notes.add("no noise scale named '" + name + "' was supplied; its noise is not in the floor");
    return null;
  }

  private static double max(List<FloorTerm> terms) {
    double max = 0;
    for (FloorTerm f : terms) {
      max = Math.max(max, f.value());
    }
    return max;
  }

  private static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
