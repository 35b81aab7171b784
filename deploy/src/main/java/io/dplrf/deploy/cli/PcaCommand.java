package io.dplrf.deploy.cli;

import io.dplrf.sketch.params.Mechanism;
import io.dplrf.deploy.io.Json;
import io.dplrf.deploy.io.Npy;
import io.dplrf.deploy.io.OutputDirectory;
import io.dplrf.deploy.io.RowInput;
import io.dplrf.deploy.oneshot.PcaOneShot;
import io.dplrf.deploy.oneshot.ReleaseDocument;
import io.dplrf.release.Pca;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code dplrf pca}: one-shot row-level private PCA. Reads one row per user, clips rows to
 * ‖x‖₂ ≤ C, and writes V.npy (d×k, orthonormal columns), S.npy (k) and release.json. Same error
 * rules as {@code factorize}: one line on stderr, exit 2 for parameters, 1 for input, no output
 * directory.
 *
 * <p>What is public. release.json holds only data-independent parameters, the noise scales and
 * post-processing of the private output. The number of rows n and the number of clipped rows are
 * exact counts that add/remove of one row changes by one, so they are NOT private: they are
 * printed on the terminal of the run (for the data holder) and never written to release.json.
 */
final class PcaCommand {
  static final String USAGE = """
      usage: dplrf pca --input FILE --rank K --epsilon E --delta D --mechanism NAME --out DIR
                       [--clip C] [--cols d] [--key FILE] [--overwrite]
                       [--sketch-cols t] [--sketch-rows v] [--alpha A]     (ata-sketch only)
                       [--max-dim N]                           (smooth-sensitivity* only)
                       [--seed HEX]                           (local, local-robust only)
                       [--p P] [--stable-clip X|inf]                 (local-robust only)
        FILE       CSV, one dense row per line (no header), or Matrix Market (rows = users)
        NAME       analyze-gauss | ata-sketch | smooth-sensitivity | smooth-sensitivity-pure |
                   local | local-robust
                   smooth-sensitivity-pure is epsilon-DP: --delta is required but not used
        --max-dim N  smooth-sensitivity keeps the exact d x d covariance and eigen-decomposes
                   it: refuse d > N (default 2000)
        local      simulates local DP: every row is a user whose client sends one noisy sketch of
                   its own row, private against replacing that row by any row of norm <= C;
                   --seed is the public seed of the sketch (default: a fresh one); no --key
                   (--sketch-cols t sets the sketch width for local too)
        local-robust  simulates LOCAL-ROBUST-PCA (pure epsilon-LDP; --delta is required but not
                   used): row i is the user of slot i, sending p-stable sketches of her row with
                   Laplace noise; --clip C bounds the l1 norm of a row (not l2); m = the number
                   of rows is a public protocol parameter; --sketch-cols t (default min(4k, m, d))
                   and --sketch-rows v (default 2t) size the sketches; --p in [1, 2) (default 1,
                   Cauchy); --stable-clip as for factorize; no --key; writes no S.npy
        --clip C   rows are clipped to l2 norm <= C; the protected change is adding or removing
                   one row (default 1)
        --cols d   the public dimension; without it, the number of values in a CSV's first row
                   or the Matrix Market header
        --key FILE secret key, created with owner-only permissions if absent
                   (default: $DPLRF_KEY or ~/.config/dplrf/secret.key)
      Writes V.npy (d x k, orthonormal columns), S.npy (k noisy eigenvalues of A^T A, clamped at 0)
      and release.json. The row count is not private and is printed here, never released.
      """;

  private static final Set<String> OPTIONS = Set.of("input", "rank", "epsilon", "delta",
      "mechanism", "out", "clip", "cols", "key", "sketch-cols", "sketch-rows", "alpha", "max-dim",
      "seed", "p", "stable-clip");
  private static final Set<String> FLAGS = Set.of("overwrite");

  private PcaCommand() {}

  static int run(String[] argv, PrintStream out, PrintStream err) throws Exception {
    Args a = Args.parse("pca", argv, 1, OPTIONS, FLAGS);
    Path input = Path.of(a.required("input"));
    Path outDir = Path.of(a.required("out"));
    Integer kOpt = a.integerOrNull("rank");
    if (kOpt == null) {
      a.required("rank");
    }
    int k = kOpt;
    PrivacyParams privacy = new PrivacyParams(a.requiredNumber("epsilon"), a.requiredNumber("delta"));
    Mechanism mechanism = Mechanism.parse("mechanism", a.required("mechanism"),
        Mechanism.of(Mechanism.Use.ROW_PCA, Mechanism.Use.LOCAL_PCA));
    double clip = a.number("clip", 1.0);
    if (!(clip > 0)) {
      throw new IllegalArgumentException("clip must be > 0 and < infinity. Provided value: " + clip);
    }
    if (mechanism != Mechanism.ATA_SKETCH) {
      for (String sketchOption : new String[] {"sketch-cols", "sketch-rows", "alpha"}) {
        boolean localCols = mechanism == Mechanism.LOCAL && sketchOption.equals("sketch-cols");
        boolean robustSizes = mechanism == Mechanism.LOCAL_ROBUST && !sketchOption.equals("alpha");
        if (!localCols && !robustSizes && a.string(sketchOption, null) != null) {
          throw new Args.UsageException("pca: --" + sketchOption + " applies to ata-sketch only"
              + (sketchOption.equals("alpha") ? "" : " (and local, local-robust)"));
        }
      }
    }
    boolean local = mechanism == Mechanism.LOCAL || mechanism == Mechanism.LOCAL_ROBUST;
    if (!local && a.string("seed", null) != null) {
      throw new Args.UsageException("pca: --seed applies to local and local-robust only");
    }
    if (mechanism != Mechanism.LOCAL_ROBUST
        && (a.string("p", null) != null || a.string("stable-clip", null) != null)) {
      throw new Args.UsageException("pca: --p and --stable-clip apply to local-robust only");
    }
    boolean overwrite = a.flag("overwrite");
    if (!overwrite && Files.exists(outDir) && !FactorizeCommand.isEmptyDir(outDir)) {
      throw new IllegalArgumentException(
          "output directory " + outDir + " exists and is not empty (use --overwrite to replace it)");
    }
    if (k < 1) {
      throw new IllegalArgumentException("rank (k) must be > 0. Provided value: " + k);
    }

    RowInput in = RowInput.open(input);
    Integer colsOpt = a.integerOrNull("cols");
    boolean dimsFromData = colsOpt == null;
    int d;
    if (colsOpt != null) {
      if (colsOpt < 1) {
        throw new IllegalArgumentException("cols must be > 0. Provided value: " + colsOpt);
      }
      d = colsOpt;
    } else {
      d = in.scanCols();
      if (d == 0) {
        throw new io.dplrf.deploy.io.InputException(input + ": no rows");
      }
    }
    if (k > d) {
      throw new IllegalArgumentException("rank (k) must be <= the dimension d = " + d
          + ". Provided value: " + k);
    }
    checkMaxDim(a, mechanism, d);
    if (local) {
      return LocalPcaCommand.run(
          a, mechanism, in, d, k, privacy, clip, dimsFromData, outDir, overwrite, out);
    }
    SketchSizes sizes = mechanism == Mechanism.ATA_SKETCH
        ? SketchSizes.of(d, d, k, a.integerOrNull("sketch-cols"), a.integerOrNull("sketch-rows"),
            a.number("alpha", SketchSizes.DEFAULT_ALPHA))
        : null;
    SecretKey key = FactorizeCommand.loadOrCreateKey(a, err);

    PcaOneShot.Result r = PcaOneShot.run(
        new PcaOneShot.Request(mechanism, d, k, privacy, clip, sizes), key,
        sink -> in.forEachRow(d, sink::accept));
    Pca.Subspace sub = r.subspace();
    Map<String, Object> doc = document(mechanism, privacy, clip, d, k, sizes, dimsFromData, key, r);
    OutputDirectory.write(outDir, overwrite, tmp -> {
      Npy.writeDoubles(tmp.resolve("V.npy"), sub.v().data(), sub.v().rows(), sub.v().cols());
      if (sub.s().length > 0) { // smooth-sensitivity releases a subspace only
        Npy.writeDoubles(tmp.resolve("S.npy"), sub.s(), sub.s().length);
      }
      Files.writeString(tmp.resolve("release.json"), Json.write(doc) + "\n");
    });
    out.printf("wrote %s: rank-%d %s PCA of %d columns, %s for one row of norm <= %s%n",
        outDir, k, mechanism.cliName(), d, mechanism == Mechanism.SMOOTH_SENSITIVITY_PURE
            ? privacy.epsilon() + "-DP (pure)"
            : "(" + privacy.epsilon() + ", " + privacy.delta() + ")-DP", clip);
    out.printf("not private, for you only (not in release.json): %d rows read, %d clipped to norm %s%n",
        r.rows(), r.clippedRows(), clip);
    if (r.notPrivateNote() != null) {
      out.printf("not private, for you only: %s%n", r.notPrivateNote());
    }
    if (r.report() != null) {
      r.report().noSignalWarning().ifPresent(w -> err.println("dplrf pca: " + w));
    }
    return 0;
  }

  static final String SMOOTH_SENSITIVITY_TEXT = "Procrustes distance min_Q ||V - V' Q||_F "
      + "between the top-k eigenbases of neighbouring Gram matrices A^T A (Q orthogonal k x k); "
      + "local bound L(g) from the Davis-Kahan sin-theta theorem with the eigengap g = lambda_k - "
      + "lambda_k+1 of A^T A: ||sin Theta||_F <= t = min(sqrt(m), C^2/g, C^2/(2(g - C^2))), "
      + "m = min(k, d-k), L = sqrt(2(1 - sqrt(1 - t^2))) for t <= 1; smooth bound "
      + "U = max_{j>=0} exp(-beta j) L(max(0, g - j C^2)) (docs/privacy/smooth-sensitivity.md)";

  /** release.json entries of the smooth-sensitivity mechanisms: nothing data-dependent. */
  private static void smoothSensitivityEntries(Map<String, Object> doc, Mechanism mechanism,
      PrivacyParams privacy) {
    if (mechanism == Mechanism.SMOOTH_SENSITIVITY_PURE) {
      doc.put("deltaNote", "pure epsilon-DP: the --delta given (" + privacy.delta()
          + ") is not used");
    }
    doc.put("relationProved", "add/remove one row of norm <= C (the relation of paper 003, "
        + "Section 1.1); replacing a row is two such steps: (2 epsilon, (1 + e^epsilon) delta) "
        + "by group privacy");
    doc.put("noise", "per entry of V_k R: " + (mechanism == Mechanism.SMOOTH_SENSITIVITY
        ? "discrete Gaussian" : "discrete Cauchy, P[z] proportional to s^2/(s^2 + z^2),")
        + " on the grid 2^-60, scale max((U + 2^-60 sqrt(d k))/slidingFactor, 2^-40); U depends "
        + "on the data, so the scale is NOT released");
    doc.put("S", "not released: the mechanism releases a subspace only (no S.npy)");
  }

  private static boolean smooth(Mechanism m) {
    return m == Mechanism.SMOOTH_SENSITIVITY || m == Mechanism.SMOOTH_SENSITIVITY_PURE;
  }

  /** --max-dim: the smooth-sensitivity mechanisms hold and eigen-decompose the exact d×d matrix. */
  private static void checkMaxDim(Args a, Mechanism mechanism, int d) {
    if (!smooth(mechanism)) {
      if (a.string("max-dim", null) != null) {
        throw new Args.UsageException("pca: --max-dim applies to smooth-sensitivity only");
      }
      return;
    }
    int maxDim = a.integer("max-dim", 2000);
    if (d > maxDim) {
      throw new IllegalArgumentException("pca: " + mechanism.cliName() + " keeps the exact d x d "
          + "covariance (" + d + " x " + d + ") and eigen-decomposes it; d = " + d
          + " exceeds --max-dim " + maxDim + " (raise --max-dim if memory and O(d^3) time allow)");
    }
  }

  static Map<String, Object> document(Mechanism mechanism, PrivacyParams privacy, double clip,
      int d, int k, SketchSizes sizes, boolean dimsFromData, SecretKey key, PcaOneShot.Result r) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("format", "dplrf-pca-release/1");
    doc.put("mechanism", mechanism.cliName());
    doc.put("reference", mechanism.reference());
    doc.put("private", true);
    doc.put("epsilon", privacy.epsilon());
    doc.put("delta", mechanism == Mechanism.SMOOTH_SENSITIVITY_PURE ? 0.0 : privacy.delta());
    doc.put("neighbouringRelation", NeighbouringRelation.ONE_ROW.description());
    doc.put("clip", clip);
    doc.put("rank", k);
    doc.put("cols", d);
    doc.put("dimensionsFromData", dimsFromData);
    if (dimsFromData) {
      doc.put("dimensionsNote", "d was read from the file (values per CSV row, or the Matrix "
          + "Market header) and is treated as public: it is the schema, the same for neighbouring "
          + "inputs. Pass --cols to fix it independently of the data.");
    }
    doc.put("rows", "not released: the number of rows changes by one when a row is added or "
        + "removed, so its exact value is not differentially private");
    doc.put("clippedRows", "not released (an exact count, not differentially private); printed "
        + "on the terminal of the run");
    doc.put("sensitivity", smooth(mechanism) ? SMOOTH_SENSITIVITY_TEXT
        : mechanism == Mechanism.ANALYZE_GAUSS
        ? "upper triangle of A^T A: ||u(x x^T)||_2 <= ||x x^T||_F = ||x||_2^2 <= C^2"
        : "A^T A as a Priv2 input: ||x x^T||_F = ||x||_2^2 <= C^2, so the plan's clip is C^2");
    if (sizes != null) {
      doc.put("sketchCols", sizes.t());
      doc.put("sketchRows", sizes.v());
    }
    doc.put("runId", r.runId());
    doc.put("keyFingerprint", key.fingerprint());
    doc.put("calibration", ReleaseDocument.describe(r.plan()));
    doc.put("noise", ReleaseDocument.describe(r.noise()));
    if (smooth(mechanism)) {
      smoothSensitivityEntries(doc, mechanism, privacy);
      doc.put("utility", "not reported: the noise scale depends on the data's eigengap and is not"
          + " released, so no noise floor can be published");
      return doc;
    }
    // The service's fields (noiseFloor, aboveFloor, reliableRank), in units of the eigenvalues
    // of A^T A that S.npy holds.
    doc.put("utility", ReleaseDocument.describe(r.report().toJsonFields()));
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("meaning", "S.npy holds estimates of the top-k eigenvalues of A^T A (the squared "
        + "singular values of A), with the noise in; negative estimates are clamped to 0");
    s.put("eigenvalues", ReleaseDocument.describe(r.subspace().eigenvalues()));
    s.put("clampedToZero", r.subspace().clamped());
    doc.put("S", s);
    return doc;
  }
}
