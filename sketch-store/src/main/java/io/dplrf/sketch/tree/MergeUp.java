package io.dplrf.sketch.tree;

import io.dplrf.sketch.lra.NoisyLinearSketch;
import io.dplrf.sketch.tree.Dyadic.NodeId;

/**
 * Where the bottom-up making of an epoch's nodes stands ({@link ContinualSketch#closeEpoch}): the
 * node to write next and its id. Each node is written, then becomes its parent in place; a write
 * that fails leaves both fields as they were, so the same write is tried again by the next
 * attempt and nothing is added twice.
 */
final class MergeUp {
  NodeId id;
  NoisyLinearSketch node;

  MergeUp(NodeId id, NoisyLinearSketch node) {
    this.id = id;
    this.node = node;
  }
}
