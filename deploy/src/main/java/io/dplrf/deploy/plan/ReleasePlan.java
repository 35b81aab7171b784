package io.dplrf.deploy.plan;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.config.TreeSettings;
import io.dplrf.deploy.serve.tree.TreeMode;
import io.dplrf.release.NoiseFloors;
import io.dplrf.release.UtilityReport.FloorTerm;
import io.dplrf.sketch.continual.BltConfig;
import io.dplrf.sketch.continual.BltPlan;
import io.dplrf.sketch.factorization.BltOptimizer;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.lra.Priv2Matrices;
import io.dplrf.sketch.lra.Priv2Plan;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.tree.ContinualSketch;
import io.dplrf.sketch.tree.TreeConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The noise of the prefix release after each epoch of a Priv2 stream (priv2-sparse or priv2), and
 * the floor a released singular value must exceed to be trusted, from public settings only.
 *
 * <ul>
 *   <li>Calibration: the service's own. The tree's node plan is {@link ContinualSketch#nodePlan}
 *       on {@link TreeMode#treeConfig} (the code a new stream runs); the BLT plan is {@link
 *       BltPlan#calibrate} on {@link TreeMode#bltConfig} with {@link BltOptimizer#optimize}(T), as
 *       {@code BltStream.create}; which of the two, the service's {@code continual} setting.
 *   <li>Noise of release t: the tree sums the nodes of [1, t] (one per set bit of t, {@link
 *       ContinualSketch#prefixNodes}), σ = √(nodes)·σ_node ({@link NoiseScale#sum}); the BLT
 *       release has {@link BltPlan#prefixNoise}(t) = σ·√(Σ_{k&lt;t} b_k²).
 *   <li>Floor: {@link NoiseFloors#priv2}, the formula of the release's utility report. Its Z term
 *       needs the released basis (r_s and σmin(SU)); before any data the plan takes r_s = p and
 *       the predicted σmin(SU) = 1 − √(p/v) ({@link NoiseFloors#predictedMinSingularValue}).
 * </ul>
 *
 * <p>The plan draws its sketching matrices from a key of its own: priv2-sparse's factors are
 * exactly 1 for every key, so its figures are the service's; priv2's Gaussian factors (the
 * largest row and column norms of the drawn matrices) vary with the key by a few percent.
 */
public final class ReleasePlan {
  /** How the service releases after every epoch ({@code continual}): the tree, or the BLT. */
  public enum Continual { TREE, FACTORIZATION }

  /** One epoch's release: its noise scales and floor terms (in units of the released S). */
  public record Epoch(int epoch, List<NoiseScale> noise, List<FloorTerm> floorTerms) {
    /** The largest floor term: a released singular value must exceed it to be trusted. */
    public double floor() {
      return NoiseFloors.floor(floorTerms);
    }
  }

  private final TreeConfig tree;
  private final Continual kind;
  private final Priv2Plan nodePlan;
  private final BltPlan blt;

  private ReleasePlan(TreeConfig tree, Continual kind, Priv2Plan nodePlan, BltPlan blt) {
    this.tree = tree;
    this.kind = kind;
    this.nodePlan = nodePlan;
    this.blt = blt;
  }

  /**
   * The plan of the service {@code config} describes (modes updates and rows; mechanisms
   * priv2-sparse and priv2), released as its {@code continual} setting says.
   *
   * @param key the key the sketching matrices are drawn from (a plan uses one of its own)
   * @param instance the stream's instance label
   */
  public static ReleasePlan of(ServiceConfig config, SecretKey key, String instance) {
    if (!config.hasContinualRelease()) {
      throw new IllegalArgumentException("plan covers modes updates and rows (the Priv2 stream);"
          + " the local and completion modes are not planned");
    }
    Mechanism m = config.tree().mechanism();
    if (m != Mechanism.PRIV2_SPARSE && m != Mechanism.PRIV2) {
      throw new IllegalArgumentException("plan covers mechanisms priv2-sparse and priv2 (Gaussian"
          + " noise); " + m.cliName() + " is not planned");
    }
    TreeConfig served = TreeMode.treeConfig(config);
    // The plan does not depend on caching the update columns; not caching keeps it small.
    TreeConfig c = new TreeConfig(served.mechanism(), served.relation(), served.sizes(),
        served.privacy(), served.clip(), served.epochs(), false, served.p());
    if (config.tree().continual() == TreeSettings.Continual.TREE) {
      return new ReleasePlan(c, Continual.TREE,
          (Priv2Plan) ContinualSketch.nodePlan(c, key, instance), null);
    }
    BltConfig s = TreeMode.bltConfig(config);
    BltConfig bc = new BltConfig(s.mechanism(), s.relation(), s.sizes(), s.privacy(), s.clip(),
        s.epochs(), false);
    Priv2Matrices mats = Priv2Matrices.generate(key, instance, bc.sizes(), false, bc.sparsity());
    return new ReleasePlan(c, Continual.FACTORIZATION, null,
        BltPlan.calibrate(bc, BltOptimizer.optimize(bc.epochs()), mats));
  }

  public TreeConfig config() {
    return tree;
  }

  public Continual kind() {
    return kind;
  }

  /** The noise scales of the prefix release after epoch {@code e} ∈ [1, T]. */
  public List<NoiseScale> noise(int e) {
    if (e < 1 || e > tree.epochs()) {
      throw new IllegalArgumentException("epoch must be in [1, " + tree.epochs()
          + "]. Provided value: " + e);
    }
    if (kind == Continual.FACTORIZATION) {
      return blt.prefixNoise(e);
    }
    return NoiseScale.sum(Collections.nCopies(ContinualSketch.prefixNodes(e),
        nodePlan.releaseNoise()));
  }

  /** The floor terms of release e for a basis of rank {@code rs} with σmin(SU) = {@code minSU}. */
  public List<FloorTerm> floorTerms(int e, int rs, double minSU) {
    SketchSizes z = tree.sizes();
    return NoiseFloors.priv2(noise(e), z.m(), z.n(), z.t(), rs, minSU);
  }

  /** p = min(t, 2k), the rank of SU a release expects. */
  public int basisWidth() {
    return NoiseFloors.basisWidth(tree.sizes().t(), tree.sizes().k());
  }

  /** 1 − √(p/v): the σmin(SU) expected before any data. */
  public double predictedMinSU() {
    return NoiseFloors.predictedMinSingularValue(basisWidth(), tree.sizes().v());
  }

  /** Release e as predicted before any data (r_s = p, σmin(SU) = {@link #predictedMinSU}). */
  public Epoch predicted(int e) {
    return new Epoch(e, noise(e), floorTerms(e, basisWidth(), predictedMinSU()));
  }

  /**
   * The epochs a plan prints: 1, 2, 4, … and 3, 7, 15, … below T, then T. The tree's noise
   * grows with the number of set bits of t (the nodes of [1, t]): the powers of two are its best
   * epochs, 2^j − 1 its worst; the BLT's grows with t.
   */
  public static List<Integer> shownEpochs(int epochs) {
    java.util.TreeSet<Integer> out = new java.util.TreeSet<>();
    for (long e = 1; e < epochs; e *= 2) {
      out.add((int) e);
      if (2 * e - 1 < epochs) {
        out.add((int) (2 * e - 1));
      }
    }
    out.add(epochs);
    return List.copyOf(out);
  }

  /**
   * The release with the highest predicted floor: over every epoch for T up to 2^20, else over
   * {@link #shownEpochs} (which hold the tree's worst epochs and the BLT's last).
   */
  public Epoch worst() {
    Epoch worst = null;
    Iterable<Integer> epochs = tree.epochs() <= 1 << 20
        ? java.util.stream.IntStream.rangeClosed(1, tree.epochs()).boxed()::iterator
        : shownEpochs(tree.epochs());
    for (int e : epochs) {
      Epoch ep = predicted(e);
      if (worst == null || ep.floor() > worst.floor()) {
        worst = ep;
      }
    }
    return worst;
  }
}
