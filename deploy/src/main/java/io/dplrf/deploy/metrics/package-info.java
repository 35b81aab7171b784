/**
 * The service's one metrics registry ({@link io.dplrf.deploy.metrics.Metrics}): a Micrometer
 * {@code PrometheusMeterRegistry} with the JVM binders, the HTTP request timer and the meters the
 * ingestion and release loops update.
 *
 * <p>Meter names are dotted lower case without unit suffixes, Micrometer's convention; Prometheus
 * adds {@code _total}, {@code _seconds}, {@code _bytes}. Tags have bounded cardinality: route
 * <i>templates</i>, status codes, partition numbers, short reason codes — never a matrix index, a
 * record key or a user. What is exported here is exact and therefore not private: it is served only
 * on the operator port.
 */
package io.dplrf.deploy.metrics;
