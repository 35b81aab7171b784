/**
 * The producer side ({@code dplrf produce}, the demo's synthetic producer): packs turnstile
 * updates into records in the {@link io.dplrf.ingest.UpdateRecords} format and sends them with a
 * rate limit. Knows nothing of bounds or state: the service validates whatever arrives.
 */
package io.dplrf.ingest.produce;
