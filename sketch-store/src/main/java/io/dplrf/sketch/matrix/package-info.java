/**
 * Plain matrix storage shared by sketches and releases: {@link io.dplrf.sketch.matrix.Dense}
 * holds numbers, {@link io.dplrf.sketch.matrix.SketchMatrix} regenerates random sketching
 * matrices on demand. No linear-algebra algorithms live here (those are in {@code release}).
 */
package io.dplrf.sketch.matrix;
