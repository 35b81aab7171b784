package io.dplrf.release;

import io.dplrf.sketch.lra.NoiseScale;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a consumer of a release may expect of its accuracy, computed only from released
 * quantities (the factorization, the public sketching matrices) and the public {@link NoiseScale}
 * list: post-processing, no privacy cost.
 *
 * <p><b>Noise floor.</b> The spectral norm of a p×q matrix of i.i.d. N(0, σ²) entries concentrates
 * at σ(√p + √q) (Gordon's bound E‖N‖₂ ≤ σ(√p + √q); Bai–Yin for the limit). By Weyl's inequality
 * every singular value of "signal + noise" is within ‖noise‖₂ of the signal's, so a released
 * singular value at or below the floor may be noise alone. Each mechanism contributes one
 * {@link FloorTerm} per noisy sketch, already translated into the units of A's singular values;
 * {@link #noiseFloor()} is their maximum. The formulas are in {@code Reports} with their
 * derivations. The floor is a typical value, not a high-probability bound: a pure-noise spectrum
 * exceeds it by O(σ) fluctuations (Tracy–Widom scale), and the translation through the sketch
 * post-processing uses worst-case operator-norm steps.
 *
 * <p><b>Predicted additive error</b> ({@link #predictedAdditiveError()}) is a <i>heuristic</i>
 * for ‖A − Ã‖_F − ‖A − [A]_k‖_F: each of the k released directions is perturbed by about one
 * floor, giving √k · floor (plus, for Priv1, the padding's σmin·√m). It is an order-of-magnitude
 * guide with constant 1, not a theorem; worst-case bounds carry constants of 2–3 and the
 * sketch mechanisms add a multiplicative (1+ε) on ‖A − [A]_k‖_F that is not included.
 *
 * @param mechanism "priv1", "priv2" or "dense"
 * @param k the requested rank
 * @param noise the public noise scales of the released sketches (σ, sensitivity, entries)
 * @param floorTerms one noise-floor contribution per noisy sketch, in units of A's spectrum
 * @param singularValues the released singular values, descending
 * @param predictedAdditiveError heuristic additive Frobenius error (see above)
 * @param errorFormula the formula behind {@code predictedAdditiveError}, for humans
 * @param notes caveats, e.g. a sketch whose noise scale was not supplied
 */
public record UtilityReport(
    String mechanism,
    int k,
    List<NoiseScale> noise,
    List<FloorTerm> floorTerms,
    double[] singularValues,
    double predictedAdditiveError,
    String errorFormula,
    List<String> notes) {

  /**
   * One sketch's contribution to the noise floor.
   *
   * @param source the sketch, in the paper's notation
   * @param value the floor, in units of A's singular values
   * @param formula how it was computed, with the numbers substituted
   */
  public record FloorTerm(String source, double value, String formula) {
    public FloorTerm {
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(formula, "formula");
      if (!(value >= 0)) {
        throw new IllegalArgumentException("floor must be >= 0. Provided value: " + value);
      }
    }
  }

  public UtilityReport {
    Objects.requireNonNull(mechanism, "mechanism");
    Objects.requireNonNull(errorFormula, "errorFormula");
    noise = List.copyOf(noise);
    floorTerms = List.copyOf(floorTerms);
    notes = List.copyOf(notes);
    singularValues = singularValues.clone();
    if (!(predictedAdditiveError >= 0)) {
      throw new IllegalArgumentException(
          "predictedAdditiveError must be >= 0. Provided value: " + predictedAdditiveError);
    }
  }

  @Override
  public double[] singularValues() {
    return singularValues.clone();
  }

  /** The largest floor term (0 when no sketch carries noise). */
  public double noiseFloor() {
    double max = 0;
    for (FloorTerm f : floorTerms) {
      max = Math.max(max, f.value());
    }
    return max;
  }

  /** For each released singular value: does it stand strictly above {@link #noiseFloor()}? */
  public boolean[] aboveFloor() {
    double floor = noiseFloor();
    boolean[] out = new boolean[singularValues.length];
    for (int l = 0; l < out.length; l++) {
      out[l] = singularValues[l] > floor;
    }
    return out;
  }

  /** How many released singular values stand above the floor (the "reliable rank"). */
  public int reliableRank() {
    int count = 0;
    for (boolean b : aboveFloor()) {
      count += b ? 1 : 0;
    }
    return count;
  }

  /**
   * A warning in plain words when the report has a noise floor and no released singular value
   * stands above it (reliable rank 0): the release may then be noise alone. Empty otherwise, and
   * for a report without a floor (no noise scale supplied, or none computable).
   */
  public Optional<String> noSignalWarning() {
    if (floorTerms.isEmpty() || reliableRank() > 0) {
      return Optional.empty();
    }
    double top = singularValues.length == 0 ? 0 : singularValues[0];
    return Optional.of(String.format(Locale.ROOT, "WARNING: reliable rank 0: no released singular"
        + " value stands above the noise floor %.4g (the largest is %.4g), so this release may be"
        + " noise alone. More data per unit of clip, a larger epsilon or fewer epochs raise the"
        + " signal above the floor ('dplrf plan' shows the floor before any data).",
        noiseFloor(), top));
  }

  /**
   * The report as JSON-ready values (String, Number, Boolean, List, Map), in a stable order, for
   * the deploy module's serialiser.
   */
  public Map<String, Object> toJsonFields() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("mechanism", mechanism);
    out.put("k", k);
    List<Object> scales = new ArrayList<>();
    for (NoiseScale ns : noise) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("sketch", ns.sketch());
      m.put("sigma", ns.sigma());
      m.put("sensitivity", ns.sensitivity());
      m.put("entries", ns.entries());
      scales.add(m);
    }
    out.put("noise", scales);
    List<Object> terms = new ArrayList<>();
    for (FloorTerm f : floorTerms) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("source", f.source());
      m.put("value", f.value());
      m.put("formula", f.formula());
      terms.add(m);
    }
    out.put("floorTerms", terms);
    out.put("noiseFloor", noiseFloor());
    out.put("singularValues", Arrays.stream(singularValues).boxed().toList());
    List<Boolean> above = new ArrayList<>();
    for (boolean b : aboveFloor()) {
      above.add(b);
    }
    out.put("aboveFloor", above);
    out.put("reliableRank", reliableRank());
    out.put("predictedAdditiveError", predictedAdditiveError);
    out.put("errorFormula", errorFormula);
    out.put("notes", notes);
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UtilityReport r
        && r.mechanism.equals(mechanism)
        && r.k == k
        && r.noise.equals(noise)
        && r.floorTerms.equals(floorTerms)
        && Arrays.equals(r.singularValues, singularValues)
        && Double.compare(r.predictedAdditiveError, predictedAdditiveError) == 0
        && r.errorFormula.equals(errorFormula)
        && r.notes.equals(notes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        mechanism, k, noise, floorTerms, Arrays.hashCode(singularValues),
        predictedAdditiveError, errorFormula, notes);
  }

  @Override
  public String toString() {
    return "UtilityReport[" + mechanism + ", k=" + k + ", floor=" + noiseFloor()
        + ", reliableRank=" + reliableRank() + ", predictedAdditiveError="
        + predictedAdditiveError + "]";
  }
}
