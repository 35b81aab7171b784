package io.dplrf.sketch.tree;

import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.lra.NoiseDerivation;
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
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.tree.Dyadic.NodeId;

/**
 * Makes the sketches of one tree: noisy nodes (label instance/node/ℓ/k) and the noiseless epoch
 * accumulator, all on the same plan and the same instance's shared sketching matrices. The
 * accumulator gets the matrices with cached update columns (it is the only sketch updates
 * touch); nodes only absorb and release, so theirs are regenerated on demand.
 */
final class NodeFactory {
  final Object plan;
  private final SecretKey key;
  private final String instance;
  private final Priv1Matrices p1Acc;
  private final Priv1Matrices p1Nodes;
  private final Priv2Matrices p2Acc;
  private final Priv2Matrices p2Nodes;
  /** Robust nodes and accumulator share one held copy (every update reads all four matrices). */
  final RobustMatrices robust;
  /**
   * How every sketch of this stream derives its Gaussian noise ({@link
   * NoisyLinearSketch#deriveNoise}): fixed when the stream starts and kept in its snapshot, so
   * that a stream recorded with an older derivation keeps its chunks and sampler for all its
   * nodes.
   */
  final NoiseDerivation derivation;

  /** A factory for {@code plan} (restore: the robust matrices are regenerated from the key). */
  NodeFactory(TreeConfig c, SecretKey key, String instance, Object plan,
      NoiseDerivation derivation) {
    this(c, key, instance, plan, plan instanceof RobustPlan rp
        ? RobustMatrices.generate(key, instance, c.sizes(), rp.p(), rp.pca(), rp.stableClip())
        : null, null, derivation);
  }

  /**
   * @param robust the robust plan's matrices, else null
   * @param priv2 the accumulator's Priv2 matrices if already drawn (their norms calibrated the
   *     plan), else null
   */
  private NodeFactory(TreeConfig c, SecretKey key, String instance, Object plan,
      RobustMatrices robust, Priv2Matrices priv2, NoiseDerivation derivation) {
    this.plan = plan;
    this.derivation = derivation;
    this.key = key;
    this.instance = instance;
    this.robust = robust;
    if (plan instanceof RobustPlan) {
      p1Acc = p1Nodes = null;
      p2Acc = p2Nodes = null;
    } else if (plan instanceof Priv1Plan) {
      p1Acc = Priv1Matrices.generate(key, instance, c.sizes(), c.cacheUpdateColumns());
      p1Nodes = Priv1Matrices.generate(key, instance, c.sizes(), false);
      p2Acc = p2Nodes = null;
    } else {
      int sparsity = ((Priv2Plan) plan).sparsity();
      p2Acc = priv2 != null ? priv2
          : Priv2Matrices.generate(key, instance, c.sizes(), c.cacheUpdateColumns(), sparsity);
      // Sparse matrices are small and always held: the nodes share the accumulator's.
      p2Nodes = sparsity > 0 ? p2Acc : Priv2Matrices.generate(key, instance, c.sizes(), false);
      p1Acc = p1Nodes = null;
    }
  }

  /**
   * A new stream's factory: its plan calibrated for the tree (L = depth compositions, never an
   * ε/L split). Priv2 plans under one-entry and entrywise-ℓ1 neighbours and the robust plans
   * depend on the drawn matrices (docs/privacy/l1-units.md §2, robust.md §3–4); the Priv2 ones
   * charge the grid rounding over the nodes one unit can touch ({@link TreeConfig#roundedNodes}:
   * L for one update, every node for a key or a row, l1-units.md §3), the robust ones over every
   * node. Priv2 under Frobenius neighbours (rows mode, one row record per unit) and Priv1 (one
   * update) charge it over the L nodes of one epoch (continual-release.md §3–4).
   */
  static NodeFactory create(TreeConfig c, SecretKey key, String instance,
      NoiseDerivation derivation) {
    int l = c.depth();
    if (c.mechanism().robust()) {
      RobustMatrices mats = RobustMatrices.generate(key, instance, c.sizes(), c.p(),
          c.mechanism() == Mechanism.ROBUST_PCA);
      RobustPlan plan = RobustPlan.calibrate(c.privacy(), c.clip(), mats, l, c.nodeCount());
      return new NodeFactory(c, key, instance, plan, mats, null, derivation);
    }
    if (c.mechanism() == Mechanism.PRIV1 || c.relation() == NeighbouringRelation.FROBENIUS) {
      return new NodeFactory(c, key, instance, calibrate(c), derivation);
    }
    int sparsity = c.mechanism() == Mechanism.PRIV2_SPARSE ? Mechanism.SPARSITY : 0;
    Priv2Matrices mats =
        Priv2Matrices.generate(key, instance, c.sizes(), c.cacheUpdateColumns(), sparsity);
    Priv2Plan plan = Priv2Plan.calibrateL1(c.privacy(), c.clip(), mats, l, c.roundedNodes());
    return new NodeFactory(c, key, instance, plan, null, mats, derivation);
  }

  /**
   * The node-level plan of Priv1 or of Priv2 under Frobenius neighbours, which need no drawn
   * matrix: L = depth compositions (continual-release.md §3 for Priv2, §4 for Priv1).
   */
  static Object calibrate(TreeConfig c) {
    int l = c.depth();
    return switch (c.mechanism()) {
      case PRIV1 -> Priv1Plan.calibrate(c.privacy(), c.clip(), c.sizes(),
          Priv1Plan.DEFAULT_JL_DELTA_SHARE, Priv1Plan.DEFAULT_YC_SHARE, l);
      case PRIV2 -> {
        if (c.relation() != NeighbouringRelation.FROBENIUS) {
          throw new IllegalArgumentException("an entrywise-l1 plan depends on the drawn matrices:"
              + " use NodeFactory.create");
        }
        yield Priv2Plan.calibrate(c.privacy(), c.clip(), c.sizes(),
            Priv1Plan.DEFAULT_JL_DELTA_SHARE, l);
      }
      default -> throw new IllegalArgumentException(
          c.mechanism().cliName() + " plans are made by NodeFactory.create");
    };
  }

  /**
   * True if a node's state is data only (Priv2, robust: noise is added at release), so that a
   * node is exactly the sum of its children ({@link ContinualSketch#closeEpoch}).
   */
  boolean nodesStartEmpty() {
    return plan instanceof Priv2Plan || plan instanceof RobustPlan;
  }

  String label(NodeId id) {
    return id.label(instance);
  }

  NoisyLinearSketch node(NodeId id) {
    NoisyLinearSketch s;
    if (plan instanceof RobustPlan rp) {
      s = RobustSketch.create(rp, robust, key, label(id));
    } else {
      s = plan instanceof Priv1Plan p
          ? Priv1Sketch.create(p, p1Nodes, key, label(id))
          : Priv2Sketch.create((Priv2Plan) plan, p2Nodes, key, label(id));
    }
    s.deriveNoise(derivation);
    return s;
  }

  /** Priv1: makes, in {@code open}, the nodes whose interval starts at epoch e of T = epochs. */
  void openStartingAt(NoisyLinearSketch[] open, int e, int epochs) {
    for (NodeId id : Dyadic.startingAt(e, epochs)) {
      open[id.level()] = node(id);
    }
  }

  /** The epoch accumulator; the nodes it becomes ({@code intoNode}) keep its noise derivation. */
  NoisyLinearSketch accumulator() {
    String label = instance + "/accumulator";
    NoisyLinearSketch s;
    if (plan instanceof RobustPlan rp) {
      s = RobustSketch.createWithoutNoise(rp, robust, key, label);
    } else {
      s = plan instanceof Priv1Plan p
          ? Priv1Sketch.createWithoutNoise(p, p1Acc, key, label)
          : Priv2Sketch.createWithoutNoise((Priv2Plan) plan, p2Acc, key, label);
    }
    s.deriveNoise(derivation);
    return s;
  }

  static Object planOf(NoisyLinearSketch s) {
    if (s instanceof RobustSketch r) {
      return r.plan();
    }
    return s instanceof Priv1Sketch p1 ? p1.plan() : ((Priv2Sketch) s).plan();
  }
}
