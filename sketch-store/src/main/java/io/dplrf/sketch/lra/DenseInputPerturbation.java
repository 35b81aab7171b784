package io.dplrf.sketch.lra;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.List;

/**
 * Input perturbation, the accuracy baseline for benchmarks: keeps the whole m×n matrix (O(mn)
 * memory) and releases round(A) + N with N i.i.d. discrete Gaussian ({@link DensePlan}).
 */
public final class DenseInputPerturbation extends NoisyLinearSketch {
  private final DensePlan plan;
  private final double[] a;

  private DenseInputPerturbation(DensePlan plan, SecretKey key, String nodeLabel) {
    super(plan.m(), plan.n(), key, nodeLabel, false);
    this.plan = plan;
    this.a = new double[Math.multiplyExact(plan.m(), plan.n())];
  }

  public static DenseInputPerturbation create(DensePlan plan, SecretKey key, String nodeLabel) {
    return new DenseInputPerturbation(plan, key, nodeLabel);
  }

  public DensePlan plan() {
    return plan;
  }

  @Override
  void apply(int i, int j, double delta) {
    a[i * n + j] += delta;
  }

  @Override
  Object planObject() {
    return plan;
  }

  /** The dense noise N is drawn at release: the state is data only. */
  @Override
  public boolean startsEmpty() {
    return true;
  }

  @Override
  void flushPending() {}

  @Override
  double[][] state() {
    return new double[][] {a};
  }

  @Override
  String instance() {
    return "";
  }

  @Override
  public DenseNoisyMatrix release() {
    double[] out = a.clone();
    roundToGrid(out, plan.noise().grid().gamma());
    addNoise("N", plan.noise(), out);
    return new DenseNoisyMatrix(
        new Dense(m, n, out), List.of(noiseScale(plan.noise(), (long) m * n)));
  }

  @Override
  public long sizeInBytes() {
    return 8L * a.length;
  }
}
