/** Test-only statistical helpers shared by randomised tests; never used by production code. */
package io.dplrf.sketch.stats;
