package io.dplrf.release;

import io.dplrf.sketch.lra.DenseNoisyMatrix;
import io.dplrf.sketch.lra.Priv1Sketches;
import io.dplrf.sketch.lra.Priv2Sketches;
import io.dplrf.sketch.lra.ReleasedSketches;
import io.dplrf.sketch.lra.RobustSketches;

/** Post-processes any released sketch bundle with the release of its mechanism. */
public final class PostProcessing {
  private PostProcessing() {}

  public static ReportedFactorization factorize(ReleasedSketches sketches, int k) {
    if (sketches instanceof Priv1Sketches p) {
      return Priv1Release.factorize(p, k);
    }
    if (sketches instanceof Priv2Sketches p) {
      return Priv2Release.factorize(p, k);
    }
    if (sketches instanceof RobustSketches p) {
      return RobustRelease.release(p, k);
    }
    return DenseRelease.factorize((DenseNoisyMatrix) sketches, k);
  }
}
