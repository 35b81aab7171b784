package io.dplrf.deploy.http;

import java.util.Map;

/**
 * Supplies {@code /admin/ingest}: exact counts (applied, rejected, clipped, dropped,
 * dead-lettered...) and the order-independent 64-bit checksum of the applied updates, as
 * JSON-ready values (String, Number, Boolean, List, Map; a {@code long} is written exactly).
 * These numbers are <b>not private</b>; they are served only on the operator port. Called on HTTP
 * worker threads; must be thread-safe.
 */
@FunctionalInterface
public interface IngestStatsSource {
  Map<String, Object> ingestStats();
}
