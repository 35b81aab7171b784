package io.dplrf.deploy.cli;

import io.dplrf.sketch.params.Mechanism;
import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.deploy.io.Json;
import io.dplrf.deploy.io.Npy;
import io.dplrf.deploy.io.OutputDirectory;
import io.dplrf.deploy.io.RowInput;
import io.dplrf.deploy.oneshot.LocalPcaOneShot;
import io.dplrf.deploy.oneshot.ReleaseDocument;
import io.dplrf.release.Pca;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.PublicSeed;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code dplrf pca --mechanism local}: the local-DP protocol simulated on a file, one user per
 * row (client randomizer per row, then the server's sum and SVD; {@link LocalPcaOneShot}). Called
 * by {@link PcaCommand} once the common options are validated. Public seed: {@code --seed HEX}
 * (what a real server would publish) or a fresh one, printed and written to release.json. No
 * secret key is read or created.
 */
final class LocalPcaCommand {
  private LocalPcaCommand() {}

  static int run(Args a, RowInput in, int d, int k, PrivacyParams privacy, double clip,
      boolean dimsFromData, Path outDir, boolean overwrite, PrintStream out) throws Exception {
    if (a.string("key", null) != null) {
      throw new Args.UsageException("pca: --key does not apply to local (it uses no secret key: "
          + "the sketch comes from the public seed, the noise from each user)");
    }
    String seedText = a.string("seed", null);
    PublicSeed seed = seedText == null ? PublicSeed.random() : PublicSeed.parse(seedText);
    Integer tOpt = a.integerOrNull("sketch-cols");
    int t = tOpt != null ? tOpt : defaultSketchCols(d, k);
    if (t < k || t > d) {
      throw new IllegalArgumentException(
          "sketch-cols (t) must be in k..d = " + k + ".." + d + ". Provided value: " + t);
    }
    LocalPcaProtocol protocol = LocalPcaProtocol.of(seed, d, t, clip, privacy);
    LocalPcaOneShot.Result r = LocalPcaOneShot.run(protocol, k, sink -> in.forEachRow(d, sink::accept));
    Pca.Subspace sub = r.subspace();
    Map<String, Object> doc = document(protocol, k, dimsFromData, r);
    OutputDirectory.write(outDir, overwrite, tmp -> {
      Npy.writeDoubles(tmp.resolve("V.npy"), sub.v().data(), sub.v().rows(), sub.v().cols());
      Npy.writeDoubles(tmp.resolve("S.npy"), sub.s(), sub.s().length);
      Files.writeString(tmp.resolve("release.json"), Json.write(doc) + "\n");
    });
    out.printf("wrote %s: rank-%d local PCA of %d columns; every report (%s, %s)-DP for its row "
        + "(norm <= %s), public seed %s%n", outDir, k, d, privacy.epsilon(), privacy.delta(), clip,
        seed);
    out.printf("not in release.json, for you only: %d reports summed, %d rows longer than %s "
        + "(clipped by their clients)%n", r.reports(), r.longRows(), clip);
    return 0;
  }

  /**
   * t = paper 002's t = O(η α⁻¹ log(k/δ)) with the default α ({@link SketchSizes#defaults}),
   * clamped to d: at d = 64, k = 10 that is t = d, where the sketch loses nothing.
   */
  static int defaultSketchCols(int d, int k) {
    return SketchSizes.defaults(d, d, k, SketchSizes.DEFAULT_ALPHA).t();
  }

  static Map<String, Object> document(LocalPcaProtocol p, int k, boolean dimsFromData,
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
}
