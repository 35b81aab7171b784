package io.dplrf.deploy.oneshot;

import io.dplrf.sketch.params.Mechanism;
import io.dplrf.release.Pca;
import io.dplrf.release.ReportedFactorization;
import io.dplrf.release.UtilityReport;
import io.dplrf.release.Priv2Release;
import io.dplrf.release.SmoothSensitivityPca;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.lra.Priv2Sketch;
import io.dplrf.sketch.pca.AnalyzeGauss;
import io.dplrf.sketch.pca.AnalyzeGaussPlan;
import io.dplrf.sketch.pca.AtaSketch;
import io.dplrf.sketch.pca.Gram;
import io.dplrf.sketch.pca.NoisyGram;
import io.dplrf.sketch.pca.SmoothSensitivityPlan;
import io.dplrf.sketch.pca.SubspaceSensitivity;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.List;

/**
 * A one-shot private PCA of a row-per-user matrix: clip every row to ‖x‖₂ ≤ C while accumulating
 * the exact AᵀA ({@link Gram}), run the mechanism (noise in), post-process to the top-k subspace.
 * As in {@link OneShot}, every run derives its randomness from a fresh random run id.
 */
public final class PcaOneShot {
  private PcaOneShot() {}

  /**
   * What to compute.
   *
   * @param sizes Priv2 sketch sizes for {@code ata-sketch} (m = n = d); ignored otherwise
   */
  public record Request(Mechanism mechanism, int dimension, int k, PrivacyParams privacy,
      double clip, SketchSizes sizes) {
    public Request {
      if (k < 1 || k > dimension) {
        throw new IllegalArgumentException(
            "rank (k) must be in 1..d = " + dimension + ". Provided value: " + k);
      }
    }
  }

  /** Something that can replay the rows of a matrix. */
  @FunctionalInterface
  public interface RowSource {
    void forEach(java.util.function.Consumer<double[]> sink) throws Exception;
  }

  /**
   * The release plus what a report needs. {@code rows}, {@code clippedRows} and {@code
   * notPrivateNote} (data-dependent values such as the eigengap, or null) are NOT private: for the
   * operator's terminal, never for release.json. {@code report} is the utility report, null
   * when no noise floor can be published (smooth sensitivity: its noise scale depends on the
   * data).
   */
  public record Result(Pca.Subspace subspace, Object plan, List<NoiseScale> noise, String runId,
      long rows, long clippedRows, String notPrivateNote, UtilityReport report) {
    public Result(Pca.Subspace subspace, Object plan, List<NoiseScale> noise, String runId,
        long rows, long clippedRows, UtilityReport report) {
      this(subspace, plan, noise, runId, rows, clippedRows, null, report);
    }
  }

  public static Result run(Request req, SecretKey key, RowSource source) throws Exception {
    Gram gram = new Gram(req.dimension(), req.clip());
    source.forEach(gram::addRow);
    return run(req, key, gram);
  }

  /** Runs the mechanism on an accumulated Gram matrix (benchmarks reuse one across ε and keys). */
  public static Result run(Request req, SecretKey key, Gram gram) {
    String runId = OneShot.newRunId();
    String instance = "pca/" + runId;
    switch (req.mechanism()) {
      case ANALYZE_GAUSS -> {
        AnalyzeGaussPlan plan = AnalyzeGaussPlan.calibrate(req.privacy(), req.clip(), req.dimension());
        NoisyGram released = AnalyzeGauss.release(plan, gram, key, instance);
        Pca.Subspace sub = Pca.topEigenvectors(released, req.k());
        return new Result(sub, plan, released.noise(), runId, gram.rowCount(),
            gram.clippedCount(), Pca.report(released, sub));
      }
      case ATA_SKETCH -> {
        Priv2Plan plan = AtaSketch.plan(req.privacy(), req.clip(), req.sizes());
        Priv2Sketch sk = AtaSketch.sketch(plan, gram, key, instance);
        var released = sk.release();
        ReportedFactorization f = Priv2Release.factorize(released, req.k());
        return new Result(Pca.fromFactorization(f.factorization()), plan, released.noise(), runId,
            gram.rowCount(), gram.clippedCount(), f.report());
      }
      case SMOOTH_SENSITIVITY, SMOOTH_SENSITIVITY_PURE -> {
        SmoothSensitivityPlan plan = req.mechanism() == Mechanism.SMOOTH_SENSITIVITY
            ? SmoothSensitivityPlan.gaussian(req.privacy(), req.clip(), req.dimension(), req.k())
            : SmoothSensitivityPlan.cauchy(req.privacy().epsilon(), req.clip(), req.dimension(), req.k());
        SmoothSensitivityPca.Result r = SmoothSensitivityPca.run(plan, gram, key, instance);
        var t = r.notPrivate();
        // Data-dependent values (the noise scale reveals the eigengap): the terminal only.
        double global = SubspaceSensitivity.globalBound(req.dimension(), req.k());
        boolean hopeless = global > 0 && t.smoothBound() >= 0.5 * global;
        String note = String.format("eigengap lambda_k - lambda_k+1 = %.6g; local bound %.4g, "
            + "smooth bound U = %.4g (beta = %.4g), noise scale %.4g per entry%s", t.gap(),
            t.localBound(), t.smoothBound(), plan.beta(), t.noiseScale(), hopeless
                ? "; U is at least half the global bound: the eigengap is too small for this "
                    + "epsilon and V is close to a random subspace"
                : "");
        return new Result(r.subspace(), plan, List.of(), runId, gram.rowCount(),
            gram.clippedCount(), note, null);
      }
      default -> throw new IllegalArgumentException(
          "mechanism " + req.mechanism().cliName() + " is not implemented yet");
    }
  }
}
