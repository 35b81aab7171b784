package io.dplrf.sketch.continual;

import io.dplrf.sketch.factorization.BltOptimizer;
import io.dplrf.sketch.factorization.BltParameters;
import io.dplrf.sketch.lra.Priv2Matrices;
import io.dplrf.sketch.lra.Priv2Sketch;
import io.dplrf.sketch.lra.Priv2Sketches;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Shared deterministic inputs of the BLT stream tests. */
final class BltFixtures {
  static final SecretKey KEY = SecretKey.forTesting(53);
  static final PrivacyParams PRIVACY = new PrivacyParams(1, 1e-6);

  private BltFixtures() {}

  static BltConfig config(Mechanism mech, SketchSizes sizes, int epochs) {
    return new BltConfig(mech, NeighbouringRelation.ENTRYWISE_L1, sizes, PRIVACY, 2.0, epochs,
        false);
  }

  /** A stream with the optimized parameters whose files are kept in memory. */
  static BltStream inMemory(BltConfig config, String instance) {
    return inMemory(config, instance, BltOptimizer.optimize(config.epochs()));
  }

  static BltStream inMemory(BltConfig config, String instance, BltParameters parameters) {
    try {
      return BltStream.create(config, KEY, instance, BltFiles.memory(), parameters);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The x-th update of epoch e (deterministic, spread over the matrix). */
  static int row(SketchSizes s, int e, int x) {
    return (int) ((7L * x + 3L * e) % s.m());
  }

  static int col(SketchSizes s, int e, int x) {
    return (int) ((11L * x + 5L * e + (long) x * x) % s.n());
  }

  static double delta(int e, int x) {
    return ((x % 13) - 6) * 0.125 + 0.01 * e;
  }

  /** Feeds updates x in [from, to) of epoch e. */
  static void feed(BltStream s, int e, int from, int to) {
    SketchSizes z = s.config().sizes();
    for (int x = from; x < to; x++) {
      s.update(row(z, e, x), col(z, e, x), delta(e, x));
    }
  }

  /**
   * The exact (noiseless) sketch x_e of epoch e's updates x in [0, perEpoch), on the stream's
   * plan and instance, in the accumulator's layout: {Y (m×t), Zᵀ (n×v)}, copies.
   */
  static double[][] exactEpoch(BltStream s, int e, int perEpoch) {
    SketchSizes z = s.config().sizes();
    Priv2Sketch exact = Priv2Sketch.createWithoutNoise(s.plan().epochPlan(),
        Priv2Matrices.generate(KEY, s.instance(), z, false, s.config().sparsity()), KEY, "exact");
    for (int x = 0; x < perEpoch; x++) {
      exact.update(row(z, e, x), col(z, e, x), delta(e, x));
    }
    double[][] st = exact.noiselessState();
    return new double[][] {st[0].clone(), st[1].clone()};
  }

  /** A release's Y and Zᵀ, in the accumulator's layout (Y m×t, Zᵀ n×v). */
  static double[][] accumulatorLayout(Priv2Sketches r) {
    int v = r.z().rows();
    int n = r.n();
    double[] z = r.z().data();
    double[] zT = new double[z.length];
    for (int b = 0; b < v; b++) {
      for (int j = 0; j < n; j++) {
        zT[j * v + b] = z[b * n + j];
      }
    }
    return new double[][] {r.y().data().clone(), zT};
  }

  static byte[] snapshot(BltStream s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    s.writeTo(out);
    return out.toByteArray();
  }

  /**
   * The service's order after a close: write the snapshot (and make it durable); then the epochs
   * it names may be released. Returns the snapshot.
   */
  static byte[] commit(BltStream s) {
    try {
      return snapshot(s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Closes the current epoch and writes its snapshot. */
  static void closeAndCommit(BltStream s) {
    s.closeEpoch();
    commit(s);
  }
}
