/**
 * Modes {@code updates} and {@code rows}: the continual-release tree of noisy linear sketches
 * (docs/privacy/continual-release.md). {@link io.dplrf.deploy.serve.tree.TreeMode} is the mode,
 * {@link io.dplrf.deploy.serve.tree.TreeTarget} the ingest target that folds updates or rows into
 * the open epoch's sketches, {@link io.dplrf.deploy.serve.tree.HeapAdvice} the heap the sizes need.
 * Private noise is drawn in sketch-store, never here.
 */
package io.dplrf.deploy.serve.tree;
