/**
 * The planner behind {@code dplrf plan}: the noise floor of every release of a service, from its
 * public settings alone, before any data. It calibrates with the service's own code (the tree's
 * node plan, the BLT plan) and computes the floor with the utility report's formulas
 * ({@link io.dplrf.release.NoiseFloors}); nothing here reads data or a secret key.
 */
package io.dplrf.deploy.plan;
