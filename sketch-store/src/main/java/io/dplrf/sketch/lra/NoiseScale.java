package io.dplrf.sketch.lra;

import java.util.ArrayList;
import java.util.List;

/**
 * The noise of one noisy sketch, as released with every factorization: the per-entry standard
 * deviation of the added noise, the ℓ2 sensitivity it was calibrated to (already including the
 * grid-rounding slack of discrete noise), and the number of noisy entries.
 *
 * @param sketch the sketch's name in the paper's notation ("Yr", "Z", "Y", "A+N", ...)
 * @param sigma per-entry noise standard deviation (0 for a sketch without additive noise)
 * @param sensitivity ℓ2 sensitivity of the sketch under the mechanism's neighbouring relation
 * @param entries number of entries that carry noise
 */
public record NoiseScale(String sketch, double sigma, double sensitivity, long entries) {

  /**
   * Noise of a sum of independent noisy parts: per part name, σ = √Σσᵢ². The sensitivity stays
   * the per-part one: the parts of a decomposition cover disjoint epochs, so one update changes
   * exactly one of them.
   */
  public static List<NoiseScale> sum(List<List<NoiseScale>> parts) {
    List<NoiseScale> first = parts.get(0);
    List<NoiseScale> out = new ArrayList<>(first.size());
    for (int x = 0; x < first.size(); x++) {
      double var = 0;
      for (List<NoiseScale> p : parts) {
        NoiseScale ns = p.get(x);
        if (p.size() != first.size() || !ns.sketch().equals(first.get(x).sketch())) {
          throw new IllegalArgumentException("released sketches disagree on their noise parts");
        }
        var += ns.sigma() * ns.sigma();
      }
      NoiseScale f = first.get(x);
      out.add(new NoiseScale(f.sketch(), Math.sqrt(var), f.sensitivity(), f.entries()));
    }
    return out;
  }
}

