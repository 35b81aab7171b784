package io.dplrf.deploy.config;

import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.SketchSizes;
import java.util.List;
import java.util.OptionalInt;

/**
 * The settings of modes {@code updates} and {@code rows}, the continual-release tree (docs/rows.md
 * for rows). Parsed by {@link #parse}; immutable.
 *
 * @param rows m (mode rows: d = cols, the released matrix AᵀA being d×d)
 * @param cols n (mode rows: d)
 * @param rank k
 * @param epochs T, the number of epochs the privacy budget covers
 * @param mechanism a mechanism that streams; {@code priv2-sparse} by default in mode updates
 *     (every unit is ℓ1-bounded: docs/privacy/l1-units.md), {@code priv2} in mode rows (AᵀA's
 *     row difference x xᵀ is only Frobenius-bounded)
 * @param privacyUnit one update, one record key or one row (mode updates; unused in mode rows,
 *     whose unit is one row record)
 * @param budgetPolicy what happens to an update beyond its unit's ℓ1 budget
 * @param sketchCols t; empty: paper 002's default for (m, n, k, α)
 * @param sketchRows v; empty: the default
 * @param alpha the accuracy parameter of the default sketch sizes
 * @param p the ℓp exponent of robust-lra and robust-pca, in [1, 2); 1 otherwise
 * @param rowRecords true in mode rows (each record is one row x of A, the sketches those of
 *     AᵀA), false in mode updates (each record is one turnstile update of A)
 * @param continual how prefixes are released ({@code continual}): the BLT factorization by
 *     default where it is proved (priv2 and priv2-sparse in mode updates:
 *     docs/privacy/blt-release.md), the binary tree otherwise
 */
public record TreeSettings(int rows, int cols, int rank, int epochs, Mechanism mechanism,
    PrivacyUnit privacyUnit, BudgetPolicy budgetPolicy, OptionalInt sketchCols,
    OptionalInt sketchRows, double alpha, double p, boolean rowRecords, Continual continual) {

  /** The privacy unit of mode updates (docs/privacy/README.md §1). */
  public enum PrivacyUnit { UPDATE, KEY, ROW }

  /** What happens to an update beyond its unit's remaining budget (key and row units). */
  public enum BudgetPolicy { CLIP, DROP }

  /**
   * How the release after epoch t is made from the epochs' noisy sketches. {@code FACTORIZATION}:
   * B(Cx + z)_t with a buffered linear Toeplitz pair (B, C), whose worst prefix variance is within
   * about 1% of the √-factorization's optimum, a tenth of the tree's at T = 1024 ([DMPST24];
   * docs/privacy/blt-release.md). {@code TREE}: the binary tree of dyadic nodes ([DNPR10];
   * docs/privacy/continual-release.md), for the mechanisms and relations the factorization's
   * proof does not cover, or to compare the two on one stream.
   */
  public enum Continual { FACTORIZATION, TREE }

  /** The settings only these modes read. */
  static final List<String> NAMES = List.of("rows", "cols", "rank", "epochs", "mechanism",
      "continual", "privacy-unit", "budget-policy", "sketch-cols", "sketch-rows", "alpha", "p");

  /** Mode {@code rows} ({@code rows} true) or {@code updates}. */
  static TreeSettings parse(SettingParser parse, boolean rowsMode) {
    if (rowsMode) {
      for (String name : List.of("rows", "privacy-unit", "budget-policy")) {
        parse.refuse(name, "unset in mode rows (the privacy unit is one row record, clipped to"
            + " norm <= clip; the released matrix is the cols x cols matrix AᵀA)");
      }
    }
    int rows = rowsMode ? 0 : parse.positiveInt("rows");
    int cols = parse.positiveInt("cols");
    if (rowsMode) {
      rows = parse.derived("rows", cols);
    }
    int rank = parse.positiveInt("rank");
    Mechanism mechanism = parse.choice("mechanism", Mechanism.of(Mechanism.Use.LOW_RANK_STREAM),
        rowsMode ? Mechanism.PRIV2 : Mechanism.PRIV2_SPARSE);
    if (rowsMode && mechanism != Mechanism.PRIV2) {
      throw parse.invalid("mechanism", "priv2 in mode rows (the ata-sketch: Priv2 sketches of AᵀA,"
          + " whose row difference x xᵀ is a Frobenius-bounded change, not one entry or a rank-one"
          + " update of A)");
    }
    double p = parse.number("p", mechanism.robust() ? "in [1, 2) (the robust mechanisms' l_p"
        + " exponent)" : "1: only robust-lra, robust-pca and local-robust take p",
        x -> mechanism.robust() ? x >= 1 && x < 2 : x == 1, 1.0);
    int epochs = parse.positiveInt("epochs");
    // Lemma 2 of blt-release.md bounds the factorization's sensitivity for ℓ1 units of the Priv2
    // sketches; the Frobenius relation of rows mode, Priv1's rank-one relation and the robust
    // mechanisms' Laplace noise are calibrated for the tree only.
    boolean factorizable = !rowsMode
        && (mechanism == Mechanism.PRIV2 || mechanism == Mechanism.PRIV2_SPARSE);
    Continual continual = parse.choice("continual", Continual.class,
        factorizable ? Continual.FACTORIZATION : Continual.TREE);
    if (continual == Continual.FACTORIZATION && !factorizable) {
      throw parse.invalid("continual", "tree " + (rowsMode ? "in mode rows" : "with mechanism "
          + mechanism.cliName()) + " (the factorization's sensitivity is proved for the l1 units"
          + " of priv2 and priv2-sparse in mode updates: docs/privacy/blt-release.md)");
    }
    PrivacyUnit unit = parse.choice("privacy-unit", PrivacyUnit.class, PrivacyUnit.UPDATE);
    BudgetPolicy policy = parse.choice("budget-policy", BudgetPolicy.class, BudgetPolicy.CLIP);
    OptionalInt sketchCols = parse.optionalPositiveInt("sketch-cols");
    OptionalInt sketchRows = parse.optionalPositiveInt("sketch-rows");
    double alpha = parse.number("alpha", "in the open interval (0, 1)", x -> x > 0 && x < 1,
        SketchSizes.DEFAULT_ALPHA);
    int min = Math.min(rows, cols);
    if (rank > min) {
      throw parse.invalid("rank", "<= min(rows, cols) = " + min);
    }
    return new TreeSettings(rows, cols, rank, epochs, mechanism, unit, policy, sketchCols,
        sketchRows, alpha, p, rowsMode, continual);
  }
}
