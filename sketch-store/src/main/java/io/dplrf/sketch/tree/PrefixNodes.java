package io.dplrf.sketch.tree;

import io.dplrf.sketch.lra.NoisyLinearSketch;
import io.dplrf.sketch.tree.Dyadic.NodeId;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The closed nodes of the prefix decomposition of [1, e] that a tree keeps in memory: every future
 * prefix release needs only these (or nodes not yet closed), and a close's parent sums need their
 * left siblings among them. All of them by default; at most {@link #keepAtMost} of the most recent
 * where the nodes are also files, the others read back from there when needed ({@link
 * ContinualSketch#keepInMemoryAtMost}). The tree serialises changes with lookups on its monitor.
 */
final class PrefixNodes {
  private final Map<NodeId, NoisyLinearSketch> kept = new HashMap<>();
  private volatile int limit = Integer.MAX_VALUE;

  NoisyLinearSketch get(NodeId id) {
    return kept.get(id);
  }

  void put(NodeId id, NoisyLinearSketch node) {
    kept.put(id, node);
  }

  int size() {
    return kept.size();
  }

  boolean isEmpty() {
    return kept.isEmpty();
  }

  Set<NodeId> keySet() {
    return kept.keySet();
  }

  Collection<NoisyLinearSketch> values() {
    return kept.values();
  }

  /** True if some nodes may be left to their files (else a missing one is a bug). */
  boolean limited() {
    return limit != Integer.MAX_VALUE;
  }

  /** Keeps at most {@code nodes} from the next {@link #install} on. */
  void keepAtMost(int nodes) {
    if (nodes < 0) {
      throw new IllegalArgumentException("nodes must be >= 0. Provided value: " + nodes);
    }
    limit = nodes;
  }

  /**
   * Epoch e is closed: keeps the nodes of the decomposition of [1, e], taken from those kept or
   * {@code justClosed}; with a limit, the most recent (last) ones, since the next closes' parent
   * sums need the smallest nodes first.
   */
  void install(int e, Map<NodeId, NoisyLinearSketch> justClosed) {
    Map<NodeId, NoisyLinearSketch> keep = new HashMap<>();
    List<NodeId> decomposition = Dyadic.decomposition(1, e);
    for (NodeId id : decomposition.subList(Math.max(0, decomposition.size() - limit),
        decomposition.size())) {
      NoisyLinearSketch n = kept.containsKey(id) ? kept.get(id) : justClosed.get(id);
      if (n != null) {
        keep.put(id, n);
      }
    }
    kept.clear();
    kept.putAll(keep);
  }
}
