package io.dplrf.deploy.oneshot;

import io.dplrf.release.DenseRelease;
import io.dplrf.release.Priv1Release;
import io.dplrf.release.Priv2Release;
import io.dplrf.release.Pca;
import io.dplrf.release.ReportedFactorization;
import io.dplrf.release.RobustRelease;
import io.dplrf.release.UtilityReport;
import io.dplrf.sketch.lra.DenseInputPerturbation;
import io.dplrf.sketch.lra.DensePlan;
import io.dplrf.sketch.lra.NoisyLinearSketch;
import io.dplrf.sketch.lra.Priv1Matrices;
import io.dplrf.sketch.lra.Priv1Plan;
import io.dplrf.sketch.lra.Priv1Sketch;
import io.dplrf.sketch.lra.Priv2Matrices;
import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.lra.Priv2Sketch;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.lra.RobustPlan;
import io.dplrf.sketch.lra.RobustSketch;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.params.Mechanism;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A one-shot private factorization: sizes → noise plan → sketch (noise in from the start) →
 * stream every update in → release → post-process. Every run draws its own sketching matrices
 * and noise under a fresh random run id: two runs must never share randomness, or their
 * difference would expose the data difference.
 */
public final class OneShot {
  private OneShot() {}

  /**
   * What to compute. {@code noNoise} produces a NON-private release (sketch-quality studies).
   * {@code relation} is the neighbouring relation to protect ({@link Mechanism#supports}).
   * {@code robust} holds the robust mechanisms' options (ignored by the others).
   */
  public record Request(
      Mechanism mechanism,
      NeighbouringRelation relation,
      SketchSizes sizes,
      PrivacyParams privacy,
      double clip,
      boolean noNoise,
      RobustOptions robust) {
    public Request {
      if (!mechanism.supports(relation)) {
        throw new IllegalArgumentException("mechanism " + mechanism.cliName() + " cannot protect "
            + relation.cliName() + " neighbours (it protects " + mechanism.relation().cliName()
            + ")");
      }
    }

    /** The mechanism's own relation. */
    public Request(Mechanism mechanism, SketchSizes sizes, PrivacyParams privacy, double clip,
        boolean noNoise) {
      this(mechanism, mechanism.relation(), sizes, privacy, clip, noNoise, RobustOptions.DEFAULT);
    }
  }

  /**
   * Options of robust-lra / robust-pca: the ℓp exponent p ∈ [1, 2), how line 7's regression is
   * solved, and the p-stable clip level factor (τ = factor·sketch dimension, ∞ = none).
   */
  public record RobustOptions(double p, RobustRelease.Regression regression, double stableClip) {
    public static final RobustOptions DEFAULT = new RobustOptions(1, RobustRelease.Regression.L2,
        RobustMatrices.DEFAULT_STABLE_CLIP);
  }

  /**
   * The release plus what a report needs. ROBUST-PCA releases only a basis: {@code release} is
   * null and {@code basis} holds it (with its report in {@code basisReport}).
   */
  public record Result(ReportedFactorization release, Object plan, String runId, long sketchBytes, long updates,
      Pca.Subspace basis, UtilityReport basisReport) {
    public Result(ReportedFactorization release, Object plan, String runId, long sketchBytes, long updates) {
      this(release, plan, runId, sketchBytes, updates, null, null);
    }

    /** The utility report of whichever output this is. */
    public UtilityReport report() {
      return release != null ? release.report() : basisReport;
    }
  }

  public static Result run(Request req, SecretKey key, UpdateSource source) throws Exception {
    String runId = newRunId();
    String instance = "oneshot/" + runId;
    String node = instance + "/node";
    SketchSizes sz = req.sizes();
    switch (req.mechanism()) {
      case PRIV1 -> {
        Priv1Plan plan = Priv1Plan.calibrate(req.privacy(), req.clip(), sz);
        Priv1Matrices mats = Priv1Matrices.generate(key, instance, sz, false);
        Priv1Sketch sk = req.noNoise()
            ? Priv1Sketch.createWithoutNoise(plan, mats, key, node)
            : Priv1Sketch.create(plan, mats, key, node);
        feed(sk, source);
        return new Result(Priv1Release.factorize(sk.release(), sz.k()), plan, runId,
            sk.sizeInBytes(), sk.updateCount());
      }
      case PRIV2, PRIV2_SPARSE -> {
        boolean sparse = req.mechanism() == Mechanism.PRIV2_SPARSE;
        Priv2Matrices mats = Priv2Matrices.generate(key, instance, sz, false,
            sparse ? Mechanism.SPARSITY : 0);
        // Entrywise ℓ1: exact factors of the drawn matrices (l1-units.md §2); Frobenius: χ².
        Priv2Plan plan = req.relation() == NeighbouringRelation.ENTRYWISE_L1
            ? Priv2Plan.calibrateL1(req.privacy(), req.clip(), mats, 1, 1)
            : Priv2Plan.calibrate(req.privacy(), req.clip(), sz);
        Priv2Sketch sk = req.noNoise()
            ? Priv2Sketch.createWithoutNoise(plan, mats, key, node)
            : Priv2Sketch.create(plan, mats, key, node);
        feed(sk, source);
        return new Result(Priv2Release.factorize(sk.release(), sz.k()), plan, runId,
            sk.sizeInBytes(), sk.updateCount());
      }
      case INPUT_PERTURBATION -> {
        if (req.noNoise()) {
          throw new IllegalArgumentException(
              "--no-noise is meaningless for input-perturbation (it would be the exact SVD)");
        }
        DensePlan plan = DensePlan.calibrate(req.privacy(), req.clip(), sz.m(), sz.n());
        DenseInputPerturbation sk = DenseInputPerturbation.create(plan, key, node);
        feed(sk, source);
        return new Result(DenseRelease.factorize(sk.release(), sz.k()), plan, runId,
            sk.sizeInBytes(), sk.updateCount());
      }
      case ROBUST_LRA, ROBUST_PCA -> {
        boolean pca = req.mechanism() == Mechanism.ROBUST_PCA;
        RobustOptions o = req.robust();
        RobustMatrices mats =
            RobustMatrices.generate(key, instance, sz, o.p(), pca, o.stableClip());
        RobustPlan plan = RobustPlan.calibrate(req.privacy(), req.clip(), mats);
        RobustSketch sk = req.noNoise()
            ? RobustSketch.createWithoutNoise(plan, mats, key, node)
            : RobustSketch.create(plan, mats, key, node);
        feed(sk, source);
        RobustSketches released = sk.release();
        if (!pca) {
          return new Result(RobustRelease.factorize(released, sz.k(), o.regression()), plan, runId,
              sk.sizeInBytes(), sk.updateCount());
        }
        Pca.Subspace basis = RobustRelease.basis(released, sz.k(), o.regression());
        return new Result(null, plan, runId, sk.sizeInBytes(), sk.updateCount(), basis,
            RobustRelease.pcaReport(released, basis));
      }
      default -> throw new AssertionError(req.mechanism());
    }
  }

  private static void feed(NoisyLinearSketch sketch, UpdateSource source) throws Exception {
    source.forEach(sketch::update);
  }

  public static String newRunId() {
    byte[] b = new byte[16];
    new SecureRandom().nextBytes(b);
    return HexFormat.of().formatHex(b);
  }
}
