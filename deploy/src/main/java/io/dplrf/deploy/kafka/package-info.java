/**
 * The embedded Kafka broker of the default set-up: {@code dplrf serve} without
 * {@code bootstrap-servers} runs the real Kafka server (KRaft, one combined broker and controller
 * node, the jars from Maven Central) inside its own JVM, with its data under the state directory.
 *
 * <p>This is deployment wiring, not ingestion: nothing here reads or writes dplrf updates, and
 * ingestion talks to this broker only through {@code bootstrapServers()}, exactly as it would to
 * an external cluster. Kafka server classes ({@code kafka.server}, {@code org.apache.kafka.metadata})
 * may be named only in this package.
 */
package io.dplrf.deploy.kafka;
