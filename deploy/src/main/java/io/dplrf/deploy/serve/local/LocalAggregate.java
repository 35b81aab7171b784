package io.dplrf.deploy.serve.local;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.ingest.RecordDecoder;
import io.dplrf.ingest.IngestTarget;
import java.time.Instant;
import java.util.Map;

/**
 * What {@link LocalMode} needs of its aggregate, whichever protocol it runs ({@code
 * local-mechanism}): {@link LocalTarget} (local-DP PCA, paper 002) or {@link LocalRobustTarget}
 * (LOCAL-ROBUST-PCA, paper 001 Algorithm 3). Both are exact sums of reports; neither adds noise
 * or spends budget. Thread-safety as the implementations.
 */
interface LocalAggregate extends IngestTarget {
  /** The protocol id every accepted report carries. */
  String protocolId();

  /** The decoder of this protocol's reports into this aggregate. */
  RecordDecoder decoder();

  /** The body of {@code GET /v1/local/protocol}: everything a client needs, all public. */
  Map<String, Object> protocolJson(String topic);

  /** The release after {@code epoch}, computed from the sum at the last close. */
  ServedRelease release(int epoch, int k, Instant at);

  /** The startup banner. */
  String banner(ServiceConfig config, String bootstrap, int httpPort, int operatorPort);

  /** Adds mode-specific exact counts to {@code /admin/ingest} (operator only). */
  void ingestStats(Map<String, Object> m);

  /** The neighbouring relation, in words. */
  String neighbouring();

  /** Bytes of the sums in memory. */
  long sizeInBytes();
}
