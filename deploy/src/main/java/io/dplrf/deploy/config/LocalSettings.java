package io.dplrf.deploy.config;

import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.PublicSeed;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The settings of mode {@code local} (docs/local-service.md): clients randomize their own rows
 * under the published protocol; the server sums reports with no key, mechanism choice or budget.
 * Parsed by {@link #parse}; immutable.
 *
 * @param mechanism the protocol ({@code local-mechanism}): {@link Mechanism#LOCAL}, paper 002's
 *     local-DP PCA (Gaussian, (ε, δ) per report; the default), or {@link Mechanism#LOCAL_ROBUST},
 *     LOCAL-ROBUST-PCA (paper 001, Appendix C, Algorithm 3: Laplace, pure ε per report)
 * @param rows local-robust: m, the public number of user slots; local: d (unused)
 * @param cols d, the dimension of the rows
 * @param rank k
 * @param epochs T: bounds the number of releases only (no budget is spent by the server)
 * @param seed the public seed ({@code seed}), if given; else the state directory's, or a new one
 * @param sketchCols t as given; {@link #localSketchCols} for local's default
 * @param sketchRows v (local-robust only)
 * @param p the ℓp exponent (local-robust only), in [1, 2)
 */
public record LocalSettings(Mechanism mechanism, int rows, int cols, int rank, int epochs,
    Optional<PublicSeed> seed, OptionalInt sketchCols, OptionalInt sketchRows, double p) {

  /** The settings only this mode reads. */
  static final List<String> NAMES = List.of("local-mechanism", "seed", "rows", "cols", "rank",
      "epochs", "sketch-cols", "sketch-rows", "p");

  /** True for LOCAL-ROBUST-PCA: m = rows user slots, v = sketch-rows, p; pure ε, no δ. */
  public boolean robust() {
    return mechanism == Mechanism.LOCAL_ROBUST;
  }

  /**
   * t, the width of each local-DP PCA report: {@code sketch-cols}, or paper 002's default t for
   * (d, d, k) at the default α clamped to d, as {@code dplrf pca --mechanism local}.
   */
  public int localSketchCols() {
    return sketchCols.isPresent() ? sketchCols.getAsInt()
        : SketchSizes.defaults(cols, cols, rank, SketchSizes.DEFAULT_ALPHA).t();
  }

  static LocalSettings parse(SettingParser parse) {
    Mechanism mechanism = parse.choice("local-mechanism",
        EnumSet.of(Mechanism.LOCAL, Mechanism.LOCAL_ROBUST), Mechanism.LOCAL);
    boolean robust = mechanism == Mechanism.LOCAL_ROBUST;
    List<String> unset = robust
        ? List.of("privacy-unit", "budget-policy", "mechanism", "alpha", "key", "delta")
        : List.of("rows", "privacy-unit", "budget-policy", "mechanism", "sketch-rows", "alpha",
            "key");
    for (String name : unset) {
      parse.refuse(name, "unset in mode local" + (robust
          ? " with local-mechanism local-robust (each report is pure epsilon-LDP: no delta)" : "")
          + " (clients randomize their own rows with the published protocol; the server sums"
          + " reports with no key, mechanism or budget)");
    }
    int rows = robust ? parse.positiveInt("rows") : 0;
    int cols = parse.positiveInt("cols");
    if (!robust) {
      rows = parse.derived("rows", cols);
    }
    int rank = parse.positiveInt("rank");
    double p = parse.number("p", robust ? "in [1, 2) (the robust mechanisms' l_p exponent)"
        : "1: only robust-lra, robust-pca and local-robust take p",
        x -> robust ? x >= 1 && x < 2 : x == 1, 1.0);
    int epochs = parse.positiveInt("epochs");
    OptionalInt sketchCols = parse.optionalPositiveInt("sketch-cols");
    OptionalInt sketchRows = parse.optionalPositiveInt("sketch-rows");
    String seed = parse.string("seed", null, "64 hexadecimal digits",
        s -> s.matches("[0-9A-Fa-f]{64}"));
    LocalSettings settings = new LocalSettings(mechanism, rows, cols, rank, epochs,
        Optional.ofNullable(seed).map(PublicSeed::parse), sketchCols, sketchRows, p);
    int min = Math.min(rows, cols);
    if (rank > min) {
      throw parse.invalid("rank", "<= min(rows, cols) = " + min);
    }
    if (robust) {
      // t <= d and the sizes' own rules are checked by the protocol (LocalRobustProtocol.of).
      if (sketchCols.isPresent() && sketchCols.getAsInt() > cols) {
        throw parse.invalid("sketch-cols", "<= cols = " + cols + " with local-robust (t <= d)");
      }
    } else {
      if (settings.localSketchCols() > cols) {
        throw parse.invalid("sketch-cols", "<= cols = " + cols + " in mode local (t <= d)");
      }
      if (rank > settings.localSketchCols()) {
        throw parse.invalid("rank", "<= sketch-cols = " + settings.localSketchCols()
            + " in mode local");
      }
    }
    return settings;
  }
}
