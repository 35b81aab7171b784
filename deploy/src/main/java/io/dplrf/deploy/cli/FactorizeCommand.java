package io.dplrf.deploy.cli;

import io.dplrf.sketch.params.Mechanism;
import io.dplrf.deploy.io.InputException;
import io.dplrf.deploy.io.Json;
import io.dplrf.deploy.io.MatrixInput;
import io.dplrf.deploy.io.Npy;
import io.dplrf.deploy.io.OutputDirectory;
import io.dplrf.deploy.oneshot.OneShot;
import io.dplrf.deploy.oneshot.ReleaseDocument;
import io.dplrf.release.Factorization;
import io.dplrf.release.RobustRelease;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.lra.RobustPlan;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.randomness.StableMatrices;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code dplrf factorize}: reads a matrix as a stream of turnstile updates and writes a one-shot
 * private rank-k factorization: U.npy (m×k), S.npy (k), V.npy (n×k) and release.json. On any
 * error: one line on stderr, a non-zero exit code and no output directory.
 */
final class FactorizeCommand {
  static final String USAGE = """
      usage: dplrf factorize --input FILE --rank K --epsilon E --delta D --out DIR
                             [--mechanism NAME] [--relation REL] [--clip C]
                             [--sketch-cols t] [--sketch-rows v] [--alpha A] [--key FILE]
                             [--rows M --cols N] [--overwrite] [--no-noise] [--p P]
                             [--regression l2|l1] [--stable-clip X|inf]
        FILE       Matrix Market (.mtx, 1-based) or CSV lines i,j,delta (0-based)
        NAME       priv2-sparse (default) | priv2 | priv1 | input-perturbation | robust-lra
                   | robust-pca
        REL        the neighbouring relation protected, scaled by --clip C (default 1):
                   entrywise-l1  ||A-A'||_1 <= C: one entry, or C spread over entries
                                 (priv2-sparse, priv2, input-perturbation, robust-*)
                   frobenius     ||A-A'||_F <= C (priv2, input-perturbation)
                   rank-one      A-A' = C u v^T, |u| = |v| = 1 (priv1)
                   default: the mechanism's own (priv2 and input-perturbation: frobenius);
                   without --mechanism, frobenius selects priv2
        --clip C   every update's delta is clamped to |delta| <= C (the count is printed, not
                   released), so one entry of any value is a neighbouring change
        --p P      robust-lra / robust-pca: the entrywise l_p objective, P in [1, 2)
                   (default 1); pure epsilon-DP, --delta is not used. robust-pca writes
                   V.npy (orthonormal n x k basis) and release.json only
        --regression  robust-*: line 7 solved as the paper (l2, default) or by IRLS on the
                   sketched l1 objective (l1); post-processing, same privacy
        --stable-clip robust-*: clip the p-stable entries at X times the sketch dimension
                   (default 1; inf = none: exact p-stable, larger sensitivity)
        --key FILE secret key, created with owner-only permissions if absent
                   (default: $DPLRF_KEY or ~/.config/dplrf/secret.key)
        --rows/--cols  public dimensions, required for a CSV unless --no-noise (the shape read
                   from the data is not private); a Matrix Market header declares them
        --no-noise NOT private: sketches without noise, for sketch-quality studies
      """;

  private static final Set<String> OPTIONS = Set.of(
      "input", "rank", "epsilon", "delta", "mechanism", "relation", "out", "sketch-cols", "sketch-rows",
      "alpha", "clip", "key", "rows", "cols", "p", "regression", "stable-clip");
  private static final Set<String> FLAGS = Set.of("overwrite", "no-noise");

  /**
   * Why a private run needs --rows/--cols (or a Matrix Market header): one update at a new largest
   * index changes the shape of U or V, so dimensions read from the data are not differentially
   * private at any ε (δ = 1). A --no-noise run, labelled not private anyway, may read them.
   */
  static final String DIMENSIONS_REQUIRED = "factorize: give the public dimensions --rows M"
      + " --cols N: read from the data, one update at a new largest index would change the"
      + " release's shape, which no noise hides (a --no-noise run, not private anyway, may omit"
      + " them)";

  private FactorizeCommand() {}

  static int run(String[] argv, PrintStream out, PrintStream err) throws Exception {
    Args a = Args.parse("factorize", argv, 1, OPTIONS, FLAGS);
    Path input = Path.of(a.required("input"));
    Path outDir = Path.of(a.required("out"));
    int k = a.integer("rank", -1);
    if (k == -1) {
      a.required("rank");
    }
    PrivacyParams privacy = new PrivacyParams(a.requiredNumber("epsilon"), a.requiredNumber("delta"));
    NeighbouringRelation relationFlag = relation(a.string("relation", null));
    // Default: the most accurate mechanism valid for the relation (docs/privacy/l1-units.md).
    Mechanism mechanism = Mechanism.parse("mechanism", a.string("mechanism",
        relationFlag == NeighbouringRelation.FROBENIUS ? "priv2" : "priv2-sparse"),
        Mechanism.of(Mechanism.Use.LOW_RANK, Mechanism.Use.LOW_RANK_STREAM));
    NeighbouringRelation relation = relationFlag != null ? relationFlag : mechanism.relation();
    if (!mechanism.supports(relation)) {
      throw new IllegalArgumentException("mechanism " + mechanism.cliName() + " cannot protect "
          + relation.cliName() + " neighbours (it protects " + mechanism.relation().cliName()
          + "; frobenius needs priv2 or input-perturbation)");
    }
    double clip = a.number("clip", 1.0);
    if (!(clip > 0)) {
      throw new IllegalArgumentException("clip must be > 0 and < infinity. Provided value: " + clip);
    }
    double alpha = a.number("alpha", SketchSizes.DEFAULT_ALPHA);
    double p = a.number("p", 1.0);
    RobustRelease.Regression regression = regression(a.string("regression", "l2"));
    double stableClip = "inf".equals(a.string("stable-clip", null)) ? Double.POSITIVE_INFINITY
        : a.number("stable-clip", RobustMatrices.DEFAULT_STABLE_CLIP);
    if (mechanism.robust()) {
      StableMatrices.checkP(p);
      if (!(stableClip > 0)) {
        throw new IllegalArgumentException("stable-clip must be > 0 or inf. Provided value: " + stableClip);
      }
    } else if (a.string("p", null) != null || a.string("regression", null) != null
        || a.string("stable-clip", null) != null) {
      throw new Args.UsageException(
          "factorize: --p, --regression and --stable-clip apply to robust-lra and robust-pca only");
    }
    boolean noNoise = a.flag("no-noise");
    boolean overwrite = a.flag("overwrite");
    if (!overwrite && Files.exists(outDir) && !isEmptyDir(outDir)) {
      throw new IllegalArgumentException(
          "output directory " + outDir + " exists and is not empty (use --overwrite to replace it)");
    }

    MatrixInput in = MatrixInput.open(input);
    Integer rowsOpt = a.integerOrNull("rows");
    Integer colsOpt = a.integerOrNull("cols");
    boolean dimsFromData = false;
    int m;
    int n;
    if (rowsOpt != null && colsOpt != null) {
      m = rowsOpt;
      n = colsOpt;
    } else if (rowsOpt != null || colsOpt != null) {
      throw new Args.UsageException("factorize: give both --rows and --cols, or neither");
    } else if (in.rows().isPresent() && in.cols().isPresent()) {
      m = in.rows().getAsInt();
      n = in.cols().getAsInt();
    } else if (!noNoise) {
      throw new Args.UsageException(DIMENSIONS_REQUIRED);
    } else {
      MatrixInput.Dimensions d = in.scanDimensions();
      m = d.rows();
      n = d.cols();
      dimsFromData = true;
    }
    SketchSizes sizes;
    try {
      sizes = mechanism == Mechanism.INPUT_PERTURBATION
          ? denseSizes(m, n, k)
          : mechanism.robust()
          ? RobustPlan.defaultSizes(m, n, k, a.integerOrNull("sketch-cols"), a.integerOrNull("sketch-rows"))
          : SketchSizes.of(m, n, k, a.integerOrNull("sketch-cols"), a.integerOrNull("sketch-rows"), alpha);
    } catch (IllegalArgumentException e) {
      if (!dimsFromData) {
        throw e;
      }
      // The message would name m or n, read from the data: say which sizes, never the shape.
      throw new IllegalArgumentException("rank k = " + k + " and the sketch sizes do not fit the"
          + " dimensions read from the data (not printed: the data's shape is not public); give"
          + " --rows and --cols, or smaller --rank/--sketch-cols/--sketch-rows");
    }
    SecretKey key = loadOrCreateKey(a, err);

    // Every update is clamped to |delta| <= C, as the service clamps under the update unit:
    // then one entry, whatever its value, is a neighbouring change under every relation (an
    // entry of 10 with C = 1 would otherwise be covered at 10 epsilon only). The count is exact
    // and so printed for the user, never released.
    long[] clamped = {0};
    OneShot.Result r = OneShot.run(
        new OneShot.Request(mechanism, relation, sizes, privacy, clip, noNoise,
            new OneShot.RobustOptions(p, regression, stableClip)), key,
        sink -> in.forEach(m, n, (i, j, delta) -> {
          if (Math.abs(delta) > clip) {
            clamped[0]++;
            sink.accept(i, j, Math.copySign(clip, delta));
          } else {
            sink.accept(i, j, delta);
          }
        }));
    Map<String, Object> doc =
        document(mechanism, relation, privacy, clip, sizes, noNoise, dimsFromData, key, r);
    if (mechanism.robust()) {
      doc.put("p", p);
    }
    OutputDirectory.write(outDir, overwrite, tmp -> {
      if (r.release() != null) {
        Factorization f = r.release().factorization();
        Npy.writeDoubles(tmp.resolve("U.npy"), f.u().data(), f.u().rows(), f.u().cols());
        Npy.writeDoubles(tmp.resolve("S.npy"), f.s(), f.s().length);
        Npy.writeDoubles(tmp.resolve("V.npy"), f.v().data(), f.v().rows(), f.v().cols());
      } else {
        Dense v = r.basis().v(); // robust-pca: the orthonormal basis only
        Npy.writeDoubles(tmp.resolve("V.npy"), v.data(), v.rows(), v.cols());
      }
      Files.writeString(tmp.resolve("release.json"), Json.write(doc) + "\n");
    });
    out.printf("wrote %s: rank-%d %s factorization of a %dx%d matrix (%d updates), %s%n",
        outDir, k, mechanism.cliName(), m, n, r.updates(),
        noNoise ? "NOT PRIVATE (--no-noise)" : mechanism.robust()
            ? privacy.epsilon() + "-DP (pure, entrywise l1)"
            : "(" + privacy.epsilon() + ", " + privacy.delta() + ")-DP");
    out.printf("not private, for you only (not in release.json): %d updates read, %d clamped to"
        + " |delta| <= %s%n", r.updates(), clamped[0], clip);
    if (clamped[0] > 0) {
      err.printf("dplrf factorize: %d of %d updates exceeded --clip %s and were clamped to it: the"
          + " release is of the clamped matrix. Choose --clip as the largest change one entry may"
          + " make (e.g. the top of a rating scale).%n", clamped[0], r.updates(), clip);
    }
    r.report().noSignalWarning().ifPresent(w -> err.println("dplrf factorize: " + w));
    return 0;
  }

  /** The --relation flag; null when absent. */
  private static NeighbouringRelation relation(String s) {
    if (s == null) {
      return null;
    }
    for (NeighbouringRelation r : new NeighbouringRelation[] {NeighbouringRelation.ENTRYWISE_L1,
        NeighbouringRelation.FROBENIUS, NeighbouringRelation.RANK_ONE}) {
      if (r.cliName().equals(s)) {
        return r;
      }
    }
    throw new IllegalArgumentException(
        "relation must be one of entrywise-l1, frobenius, rank-one. Provided value: " + s);
  }

  private static RobustRelease.Regression regression(String s) {
    return switch (s) {
      case "l2" -> RobustRelease.Regression.L2;
      case "l1" -> RobustRelease.Regression.L1;
      default -> throw new IllegalArgumentException(
          "regression must be one of l2, l1. Provided value: " + s);
    };
  }

  private static SketchSizes denseSizes(int m, int n, int k) {
    int lim = Math.min(m, n);
    if (k > lim) {
      throw new IllegalArgumentException("rank (k) must be <= min(rows, cols) = " + lim + ". Provided value: " + k);
    }
    return new SketchSizes(m, n, k, k, k);
  }

  static Path keyPath(Args a) {
    String p = a.string("key", System.getenv("DPLRF_KEY"));
    if (p != null && !p.isBlank()) {
      return Path.of(p);
    }
    return defaultKeyPath();
  }

  private static Path defaultKeyPath() {
    return Path.of(System.getProperty("user.home"), ".config", "dplrf", "secret.key");
  }

  /**
   * The secret key at {@link #keyPath}, created there (owner-only) when absent. Creating it at the
   * default path, which the user did not name, is said on {@code err}: the key decides the
   * sketches and the noise, so a user should know where it is.
   */
  static SecretKey loadOrCreateKey(Args a, PrintStream err) throws java.io.IOException {
    Path path = keyPath(a);
    boolean announce = path.equals(defaultKeyPath())
        && !Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    SecretKey key = SecretKey.loadOrCreate(path);
    if (announce) {
      err.println("dplrf: created a secret key at " + path + " (owner-only; it draws the sketches"
          + " and the noise: keep it secret, and keep it to reproduce a run)");
    }
    return key;
  }

  static boolean isEmptyDir(Path p) throws java.io.IOException {
    if (!Files.isDirectory(p)) {
      return false;
    }
    try (var s = Files.list(p)) {
      return s.findAny().isEmpty();
    }
  }

  static Map<String, Object> document(Mechanism mechanism, NeighbouringRelation relation,
      PrivacyParams privacy, double clip, SketchSizes sizes, boolean noNoise,
      boolean dimsFromData, SecretKey key, OneShot.Result r) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("format", "dplrf-release/1");
    doc.put("mechanism", mechanism.cliName());
    doc.put("reference", mechanism.reference());
    doc.put("private", !noNoise);
    if (noNoise) {
      doc.put("warning", "--no-noise: sketches without noise. This release is NOT differentially private.");
    } else {
      doc.put("epsilon", privacy.epsilon());
      // The robust mechanisms are pure ε-DP (Laplace noise, exact sensitivity): δ = 0.
      doc.put("delta", mechanism.robust() ? 0.0 : privacy.delta());
      doc.put("relation", relation.cliName());
      doc.put("neighbouringRelation", relation.description());
      doc.put("clip", clip);
    }
    doc.put("updateClamp", "every update's delta clamped to [-" + clip + ", " + clip + "] before"
        + " sketching; how many were clamped is not released (an exact count): it is printed on"
        + " the terminal of the run");
    doc.put("rank", sizes.k());
    doc.put("rows", sizes.m());
    doc.put("cols", sizes.n());
    doc.put("dimensionsFromData", dimsFromData);
    if (mechanism != Mechanism.INPUT_PERTURBATION) {
      doc.put("sketchCols", sizes.t());
      doc.put("sketchRows", sizes.v());
    }
    doc.put("runId", r.runId());
    doc.put("keyFingerprint", key.fingerprint());
    doc.put("sketchBytes", r.sketchBytes());
    if (!noNoise) {
      doc.put("calibration", ReleaseDocument.describe(r.plan()));
    }
    // The service's fields (noiseFloor, aboveFloor, reliableRank with the report's own), as
    // the service's release document writes them (UtilityReport#toJsonFields).
    doc.put("utility", ReleaseDocument.describe(r.report().toJsonFields()));
    return doc;
  }

  static boolean isInputError(Throwable e) {
    return e instanceof InputException;
  }
}
