package io.dplrf.deploy.cli;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalProtocol;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.deploy.io.Json;
import io.dplrf.deploy.io.Npy;
import io.dplrf.deploy.io.OutputDirectory;
import io.dplrf.deploy.io.RowInput;
import io.dplrf.deploy.oneshot.LocalPcaOneShot;
import io.dplrf.deploy.oneshot.ReleaseDocument;
import io.dplrf.release.Pca;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.PublicSeed;
import io.dplrf.sketch.randomness.StableMatrices;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code dplrf pca --mechanism local|local-robust}: a local protocol simulated on a file, one user
 * per row (client randomizer per row, then the server's sums and post-processing; {@link
 * LocalPcaOneShot}). Called by {@link PcaCommand} once the common options are validated. Public
 * seed: {@code --seed HEX} (what a real server would publish) or a fresh one, printed and written
 * to release.json. No secret key is read or created.
 *
 * <p>What differs per mechanism is the protocol's parameters and release.json: {@code local}
 * (local-DP PCA) takes {@code --sketch-cols t} and writes V.npy, S.npy; {@code local-robust}
 * (LOCAL-ROBUST-PCA) reads the file twice — once to count the rows (m, the number of user slots,
 * which sizes the public Φ and S), once to run the clients — takes {@code --sketch-cols},
 * {@code --sketch-rows}, {@code --p}, {@code --stable-clip}, and writes V.npy only (the singular
 * values ROBUST-PCA's post-processing produces are in sketch units and do not estimate A's
 * spectrum).
 */
final class LocalPcaCommand {
  private LocalPcaCommand() {}

  static int run(Args a, Mechanism mechanism, RowInput in, int d, int k, PrivacyParams privacy,
      double clip, boolean dimsFromData, Path outDir, boolean overwrite, PrintStream out)
      throws Exception {
    boolean robust = mechanism == Mechanism.LOCAL_ROBUST;
    if (a.string("key", null) != null) {
      throw new Args.UsageException("pca: --key does not apply to " + mechanism.cliName()
          + " (it uses no secret key: the " + (robust ? "sketches come" : "sketch comes")
          + " from the public seed, the noise from each user)");
    }
    String seedText = a.string("seed", null);
    PublicSeed seed = seedText == null ? PublicSeed.random() : PublicSeed.parse(seedText);
    LocalProtocol protocol = robust ? robustProtocol(a, in, seed, d, k, privacy, clip)
        : pcaProtocol(a, seed, d, k, privacy, clip);
    LocalPcaOneShot.Result r =
        LocalPcaOneShot.run(protocol, k, sink -> in.forEachRow(d, sink::accept));
    Pca.Subspace sub = r.subspace();
    Map<String, Object> doc = robust
        ? robustDocument((LocalRobustProtocol) protocol, dimsFromData, privacy)
        : pcaDocument((LocalPcaProtocol) protocol, k, dimsFromData, r);
    OutputDirectory.write(outDir, overwrite, tmp -> {
      Npy.writeDoubles(tmp.resolve("V.npy"), sub.v().data(), sub.v().rows(), sub.v().cols());
      if (!robust) {
        Npy.writeDoubles(tmp.resolve("S.npy"), sub.s(), sub.s().length);
      }
      Files.writeString(tmp.resolve("release.json"), Json.write(doc) + "\n");
    });
    if (robust) {
      out.printf("wrote %s: rank-%d local robust PCA of %d columns; every report %s-DP (pure) for "
          + "its row (l1 norm <= %s), %d user slots, public seed %s%n", outDir, k, d,
          privacy.epsilon(), clip, protocol.slots(), seed);
      out.printf("not in release.json, for you only: %d rows with l1 norm above %s (scaled down by "
          + "their clients)%n", r.longRows(), clip);
    } else {
      out.printf("wrote %s: rank-%d local PCA of %d columns; every report (%s, %s)-DP for its row "
          + "(norm <= %s), public seed %s%n", outDir, k, d, privacy.epsilon(), privacy.delta(),
          clip, seed);
      out.printf("not in release.json, for you only: %d reports summed, %d rows longer than %s "
          + "(clipped by their clients)%n", r.reports(), r.longRows(), clip);
    }
    return 0;
  }

  /** {@code local}: d, t = {@code --sketch-cols} (default {@link #defaultSketchCols}), C, (ε, δ). */
  private static LocalPcaProtocol pcaProtocol(Args a, PublicSeed seed, int d, int k,
      PrivacyParams privacy, double clip) {
    Integer tOpt = a.integerOrNull("sketch-cols");
    int t = tOpt != null ? tOpt : defaultSketchCols(d, k);
    if (t < k || t > d) {
      throw new IllegalArgumentException(
          "sketch-cols (t) must be in k..d = " + k + ".." + d + ". Provided value: " + t);
    }
    return LocalPcaProtocol.of(seed, d, t, clip, privacy);
  }

  /**
   * {@code local-robust}: m = the number of rows of the file (counted here: one user slot per
   * row), d, k, t and v ({@code --sketch-cols}, {@code --sketch-rows}), p, C (ℓ1), the stable
   * clip, ε.
   */
  private static LocalRobustProtocol robustProtocol(Args a, RowInput in, PublicSeed seed, int d,
      int k, PrivacyParams privacy, double clip) throws Exception {
    double p = StableMatrices.checkP(a.number("p", 1.0));
    double stableClip = "inf".equals(a.string("stable-clip", null)) ? Double.POSITIVE_INFINITY
        : a.number("stable-clip", RobustMatrices.DEFAULT_STABLE_CLIP);
    if (!(stableClip > 0)) {
      throw new IllegalArgumentException("stable-clip must be > 0 or inf. Provided value: "
          + stableClip);
    }
    long[] rows = {0};
    in.forEachRow(d, row -> rows[0]++);
    if (rows[0] > Integer.MAX_VALUE / 2) {
      throw new IllegalArgumentException("local-robust supports at most 2^30 rows (user slots)");
    }
    int m = (int) rows[0];
    if (m < k) {
      throw new IllegalArgumentException("rank (k) must be <= the number of rows m = " + m
          + " (one user slot per row). Provided value: " + k);
    }
    return LocalRobustProtocol.of(seed, m, d, k, a.integerOrNull("sketch-cols"),
        a.integerOrNull("sketch-rows"), p, clip, stableClip, privacy);
  }

  /**
   * t = paper 002's t = O(η α⁻¹ log(k/δ)) with the default α ({@link SketchSizes#defaults}),
   * clamped to d: at d = 64, k = 10 that is t = d, where the sketch loses nothing.
   */
  static int defaultSketchCols(int d, int k) {
    return SketchSizes.defaults(d, d, k, SketchSizes.DEFAULT_ALPHA).t();
  }

  /** release.json of {@code local}: everything public about the protocol, and S. */
  static Map<String, Object> pcaDocument(LocalPcaProtocol p, int k, boolean dimsFromData,
      LocalPcaOneShot.Result r) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("format", "dplrf-pca-release/1");
    doc.put("mechanism", Mechanism.LOCAL.cliName());
    doc.put("reference", Mechanism.LOCAL.reference());
    doc.put("private", true);
    doc.put("epsilon", p.privacy().epsilon());
    doc.put("delta", p.privacy().delta());
    doc.put("neighbouringRelation", "local: each user's report is (epsilon, delta)-DP with "
        + "respect to replacing that user's row x by any other row x' (||x||_2, ||x'||_2 <= C, "
        + "rows clipped to C by the client); the release is post-processing of the reports");
    doc.put("clip", p.clip());
    doc.put("rank", k);
    doc.put("cols", p.dimension());
    doc.put("sketchCols", p.sketchCols());
    doc.put("dimensionsFromData", dimsFromData);
    doc.put("protocol", LocalPcaProtocol.FORMAT);
    doc.put("protocolId", p.id());
    doc.put("publicSeed", p.seed().toString());
    doc.put("publicSeedNote", "public: Phi (d x t, orthonormal columns) is regenerated from it by "
        + "every client; the noise is each client's own (SecureRandom-seeded), never from the seed");
    doc.put("rows", "not released (the number of reports is printed on the terminal of the run)");
    doc.put("sensitivity", "report query q(x) = x x^T Phi: ||q(x) - q(x')||_F <= ||x x^T - x' "
        + "x'^T||_F ||Phi||_2 <= sqrt(2) C^2 sqrt(1 + eta + rounding slack), eta = ||Phi^T Phi - "
        + "I||_F; attained at x = C phi_1, x' = C phi_2");
    doc.put("orthonormalityDefect", p.orthonormalityDefect());
    doc.put("calibration", ReleaseDocument.describe(p.noise()));
    Map<String, Object> noise = new LinkedHashMap<>();
    noise.put("perReportSigma", p.noise().sigma());
    noise.put("perReportSensitivity", p.noise().sensitivity());
    noise.put("perReportEntries", (long) p.dimension() * p.sketchCols());
    noise.put("aggregate", "Y = sum of the m reports = A^T A Phi + N, N with independent entries "
        + "of variance m * perReportSigma^2");
    doc.put("noise", noise);
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("meaning", "S.npy holds the top-k singular values of the noisy aggregate Y; with t = d "
        + "they estimate the top-k eigenvalues of A^T A, biased upwards by the noise");
    s.put("values", ReleaseDocument.describe(r.subspace().s()));
    doc.put("S", s);
    return doc;
  }

  /** release.json of {@code local-robust}: everything public about the protocol; no S. */
  static Map<String, Object> robustDocument(LocalRobustProtocol p, boolean dimsFromData,
      PrivacyParams privacy) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("format", "dplrf-pca-release/1");
    doc.put("mechanism", Mechanism.LOCAL_ROBUST.cliName());
    doc.put("reference", Mechanism.LOCAL_ROBUST.reference());
    doc.put("private", true);
    doc.put("epsilon", privacy.epsilon());
    doc.put("delta", 0.0);
    doc.put("deltaNote", "pure epsilon-LDP: the --delta given (" + privacy.delta()
        + ") is not used");
    doc.put("neighbouringRelation", "one row, local: each user's report is epsilon-DP with "
        + "respect to replacing that user's row x by any other row x' (||x||_1, ||x'||_1 <= C, "
        + "rows clipped to l1 norm C by the client); the release is post-processing of the reports");
    doc.put("clip", p.clip());
    doc.put("clipNorm", "l1");
    doc.put("rank", p.sizes().k());
    doc.put("cols", p.dimension());
    doc.put("users", p.slots());
    doc.put("usersNote", "m = the number of user slots (rows of the file): Phi and S have one "
        + "column per slot, so m is a public protocol parameter; replacing a row does not change it");
    doc.put("sketchCols", p.sizes().t());
    doc.put("sketchRows", p.sizes().v());
    doc.put("p", p.p());
    doc.put("stableClip", ReleaseDocument.describe(p.stableClip()));
    doc.put("dimensionsFromData", dimsFromData);
    doc.put("protocol", LocalRobustProtocol.FORMAT);
    doc.put("protocolId", p.id());
    doc.put("publicSeed", p.seed().toString());
    doc.put("publicSeedNote", "public: Phi (t x m), S (v x m) and T (d x v), p-stable, are "
        + "regenerated from it by every client; the noise is each client's own "
        + "(SecureRandom-seeded), never from the seed");
    doc.put("sensitivity", "per report, l1: Yr_i = Phi[:,i] x^T moves by ||Phi[:,i]||_1 ||x - "
        + "x'||_1 <= 2C max_i ||Phi[:,i]||_1; Z_i = S[:,i] x^T T by <= 2C max_i ||S[:,i]||_1 "
        + "max_j ||T[j,:]||_1; both attained at x = C e_j, x' = -C e_j (docs/privacy/local-pca.md "
        + "section 4)");
    doc.put("calibration", ReleaseDocument.describe(p.plan()));
    doc.put("calibrationNote", "the central ROBUST-PCA plan (robust.md sections 3-4) with clip 2C:"
        + " a report's change is that of the central sketches under e_i (x - x')^T, whose l1 norm"
        + " is <= 2C; its delta is not used");
    Map<String, Object> noise = new LinkedHashMap<>();
    noise.put("perReportLaplaceScaleYr", p.plan().yr().scale());
    noise.put("perReportLaplaceScaleZ", p.plan().z().scale());
    noise.put("perReportSensitivityYr", p.plan().yr().sensitivityWithSlack());
    noise.put("perReportSensitivityZ", p.plan().z().sensitivityWithSlack());
    noise.put("perReportEntries", (long) p.sizes().t() * p.dimension()
        + (long) p.sizes().v() * p.sizes().v());
    noise.put("aggregate", "Yr = Phi A + N1, Z = S A T + N2, each entry of N the sum of the m "
        + "users' independent Laplace noises (variance 2 m b^2)");
    doc.put("noise", noise);
    doc.put("S", "not released: ROBUST-PCA's post-processing gives singular values in sketch "
        + "units, which order the directions but do not estimate A's spectrum (no S.npy)");
    return doc;
  }
}
