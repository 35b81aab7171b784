/**
 * Validated parameter values: privacy budgets, neighbouring relations, sketch sizes. Invalid
 * state is unrepresentable after construction. Nothing here draws randomness or touches data.
 */
package io.dplrf.sketch.params;
