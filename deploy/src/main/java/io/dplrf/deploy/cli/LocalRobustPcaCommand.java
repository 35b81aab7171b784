package io.dplrf.deploy.cli;

import io.dplrf.sketch.params.Mechanism;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.deploy.io.Json;
import io.dplrf.deploy.io.Npy;
import io.dplrf.deploy.io.OutputDirectory;
import io.dplrf.deploy.io.RowInput;
import io.dplrf.deploy.oneshot.LocalPcaOneShot;
import io.dplrf.deploy.oneshot.ReleaseDocument;
import io.dplrf.release.Pca;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import io.dplrf.sketch.randomness.StableMatrices;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code dplrf pca --mechanism local-robust}: LOCAL-ROBUST-PCA simulated on a file, one user per
 * row ({@link LocalPcaOneShot}). Called by {@link PcaCommand} once the common options are
 * validated. The file is read twice: once to count the rows (m, the number of user slots, which
 * sizes the public Φ and S), once to run the clients. Public seed: {@code --seed HEX} or a fresh
 * one. No secret key. Writes V.npy and release.json; no S.npy (the singular values ROBUST-PCA's
 * post-processing produces are in sketch units and do not estimate A's spectrum).
 */
final class LocalRobustPcaCommand {
  private LocalRobustPcaCommand() {}

  static int run(Args a, RowInput in, int d, int k, PrivacyParams privacy, double clip,
      boolean dimsFromData, Path outDir, boolean overwrite, PrintStream out) throws Exception {
    if (a.string("key", null) != null) {
      throw new Args.UsageException("pca: --key does not apply to local-robust (it uses no secret "
          + "key: the sketches come from the public seed, the noise from each user)");
    }
    String seedText = a.string("seed", null);
    PublicSeed seed = seedText == null ? PublicSeed.random() : PublicSeed.parse(seedText);
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
    LocalRobustProtocol protocol = LocalRobustProtocol.of(seed, m, d, k,
        a.integerOrNull("sketch-cols"), a.integerOrNull("sketch-rows"), p, clip, stableClip,
        privacy);
    LocalPcaOneShot.Result r =
        LocalPcaOneShot.run(protocol, k, sink -> in.forEachRow(d, sink::accept));
    Pca.Subspace sub = r.subspace();
    Map<String, Object> doc = document(protocol, dimsFromData, privacy);
    OutputDirectory.write(outDir, overwrite, tmp -> {
      Npy.writeDoubles(tmp.resolve("V.npy"), sub.v().data(), sub.v().rows(), sub.v().cols());
      Files.writeString(tmp.resolve("release.json"), Json.write(doc) + "\n");
    });
    out.printf("wrote %s: rank-%d local robust PCA of %d columns; every report %s-DP (pure) for "
        + "its row (l1 norm <= %s), %d user slots, public seed %s%n", outDir, k, d,
        privacy.epsilon(), clip, m, seed);
    out.printf("not in release.json, for you only: %d rows with l1 norm above %s (scaled down by "
        + "their clients)%n", r.longRows(), clip);
    return 0;
  }

  static Map<String, Object> document(LocalRobustProtocol p, boolean dimsFromData,
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
