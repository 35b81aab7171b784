/**
 * The streaming service ({@code dplrf serve}): {@link io.dplrf.deploy.serve.Service} wires Kafka,
 * the ingest loop, the two HTTP listeners, the metrics and the lifecycle the same way for every
 * mode; {@link io.dplrf.deploy.serve.ServiceMode} is what a mode supplies, and
 * {@link io.dplrf.deploy.serve.Modes#open} is the one place that picks it from the configuration.
 *
 * <p>Each mode is a package of its own below this one — {@code tree} (modes updates and rows),
 * {@code local} (local-DP reports) and {@code completion} (ratings) — and no mode package imports
 * another. No code outside {@code Modes} and the mode packages asks which mode is running.
 */
package io.dplrf.deploy.serve;
