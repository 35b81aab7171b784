package io.dplrf.deploy.serve.local;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalProtocol;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.randomness.PublicSeed;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What mode local does differently for each {@link LocalProtocol} (setting {@code
 * local-mechanism}); everything else — the exact sums, the slot bits, the snapshot, the epochs —
 * is {@link LocalTarget}'s, the same for both. Per protocol: its release (the post-processing
 * differs: the top-k basis of Y for local-DP PCA, ROBUST-PCA's basis of (Yr, Z) for
 * LOCAL-ROBUST-PCA), what the service publishes about it ({@code GET /v1/local/protocol}, the
 * relation, the banner), and the tag of its snapshot. Neither adds noise or spends budget.
 * Immutable and thread-safe.
 */
sealed interface ServedProtocol permits ServedPca, ServedRobustPca {

  /**
   * The protocol of this service's {@code local-mechanism}, with the public seed of the state
   * directory ({@link LocalMode#seed}): the one switch on the setting.
   */
  static ServedProtocol of(PublicSeed seed, ServiceConfig config) {
    return config.local().robust() ? ServedRobustPca.of(seed, config) : ServedPca.of(seed, config);
  }

  /** The served form of {@code protocol}. */
  static ServedProtocol of(LocalProtocol protocol) {
    if (protocol instanceof LocalRobustProtocol robust) {
      return new ServedRobustPca(robust);
    }
    return new ServedPca((LocalPcaProtocol) protocol);
  }

  LocalProtocol protocol();

  /** The snapshot's tag: its magic and the dimensions it records ({@link LocalTarget}). */
  LocalTarget.StateTag stateTag();

  /**
   * The release after {@code epoch} from the sums at its close ({@code sums}, one per report
   * part, of {@code reports} reports): the rank-k basis, served as V S Vᵀ (U = V).
   */
  ServedRelease release(List<Dense> sums, long reports, int epoch, int k, Instant at);

  /** The body of {@code GET /v1/local/protocol}: everything a client needs, all public. */
  Map<String, Object> protocolJson(String topic);

  /** What each release is, in words (the status page's subtitle). */
  String released();

  /** The neighbouring relation of the protocol, in words. */
  String neighbouring();

  /** The startup banner: where clients fetch the protocol, push reports and pull releases. */
  String banner(ServiceConfig config, String bootstrap, int httpPort, int operatorPort);
}
