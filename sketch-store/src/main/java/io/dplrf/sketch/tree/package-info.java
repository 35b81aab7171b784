/**
 * Continual release (docs/design.md §5): the binary tree of dyadic partial sketches
 * over epochs 1..T. {@link io.dplrf.sketch.tree.ContinualSketch} takes turnstile updates into one
 * noiseless accumulator for the current epoch (per-update cost independent of the depth L), folds
 * it into the O(log T) noisy nodes containing the epoch when the epoch closes, and answers prefix
 * and range queries by summing released closed nodes. Node noise is calibrated over the L nodes an
 * update lands in (docs/privacy/continual-release.md).
 *
 * <p>What may not live here: Kafka, HTTP, linear algebra beyond sums, and any way to redraw a
 * node's noise. Node sketches come from {@code io.dplrf.sketch.lra}; their binary format stays
 * owned by {@code SketchCodec}, the tree's by {@code TreeCodec}.
 */
package io.dplrf.sketch.tree;
