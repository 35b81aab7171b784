/**
 * The Kafka ingest layer: decode packed turnstile updates ({@link io.dplrf.ingest.UpdateRecords}),
 * validate and bound them per privacy unit ({@link io.dplrf.ingest.ContributionBounds}), apply them
 * to an {@link io.dplrf.ingest.IngestTarget}, close epochs, and keep the consumed offsets in the
 * same crash-safe snapshot as the state ({@link io.dplrf.ingest.StateStore}), so that ingestion is
 * exactly once end to end ({@link io.dplrf.ingest.IngestLoop}).
 *
 * <p>Kafka types live here and in {@code deploy} only. Nothing here knows the sketch types: the
 * sketch tree is reached through {@link io.dplrf.ingest.IngestTarget}, which {@code deploy}
 * adapts. No linear algebra, no HTTP.
 */
package io.dplrf.ingest;
