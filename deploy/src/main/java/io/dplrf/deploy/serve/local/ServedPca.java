package io.dplrf.deploy.serve.local;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.deploy.oneshot.LocalPcaOneShot;
import io.dplrf.release.Factorization;
import io.dplrf.release.Pca;
import io.dplrf.release.UtilityReport;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Mode local with {@code local-mechanism = local} (docs/local-service.md): local-DP PCA (paper
 * 002), whose reports are (ε, δ)-DP sketches x xᵀΦ and whose release is the top-k basis of their
 * sum Y. Immutable and thread-safe.
 */
final class ServedPca implements ServedProtocol {
  private final LocalPcaProtocol protocol;

  ServedPca(LocalPcaProtocol protocol) {
    this.protocol = protocol;
  }

  /**
   * The protocol of this service: d = cols, t = sketch-cols (default as {@code dplrf pca
   * --mechanism local}), C = clip, (ε, δ) per report.
   */
  static ServedPca of(PublicSeed seed, ServiceConfig config) {
    return new ServedPca(LocalPcaProtocol.of(seed, config.local().cols(), config.local().localSketchCols(),
        config.clip(), new PrivacyParams(config.epsilon(), config.delta())));
  }

  @Override
  public LocalPcaProtocol protocol() {
    return protocol;
  }

  @Override
  public LocalTarget.StateTag stateTag() {
    return LocalTarget.DPLRLOC1;
  }

  /**
   * V = top-k left singular vectors of the sum Y ({@link Pca#fromRangeSketch}, as {@code dplrf
   * pca --mechanism local}), served as the factorization V S Vᵀ of AᵀA (U = V: AᵀA is symmetric).
   *
   * <p>The utility report gives the per-report noise scale only: the noise of Y has standard
   * deviation σ√m per entry, so its floor ≈ σ√m(√d + √t) needs the number of reports m, which
   * the public API does not release (as the offline release.json does not).
   */
  @Override
  public ServedRelease release(List<Dense> sums, long reports, int epoch, int k, Instant at) {
    LocalPcaProtocol p = protocol;
    Pca.Subspace sub = LocalPcaOneShot.basis(p, sums, reports, k);
    Factorization f = new Factorization(sub.v(), sub.s(), sub.v());
    UtilityReport report = new UtilityReport("local", k,
        List.of(new NoiseScale("report", p.noise().sigma(), p.noise().sensitivity(),
            (long) p.dimension() * p.sketchCols())),
        List.of(), sub.s(), 0.0,
        "not computed: Y's noise has sigma*sqrt(m) per entry (sigma per report, m reports), floor"
            + " about sigma*sqrt(m)*(sqrt(d) + sqrt(t)); m is not released",
        List.of("local-DP: every report is (epsilon, delta)-DP by itself; this release is"
            + " post-processing of their sum and spends no budget",
            "S estimates the top-k eigenvalues of A^T A (t = d: exactly, without noise), biased"
            + " upwards by the noise"));
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("mechanism", "local");
    meta.put("protocolId", p.id());
    meta.put("publicSeed", p.seed().toString());
    meta.put("sketchCols", p.sketchCols());
    return new ServedRelease(1, epoch, f, report, at, meta);
  }

  @Override
  public String released() {
    return "principal directions from local-DP reports";
  }

  @Override
  public Map<String, Object> protocolJson(String topic) {
    LocalPcaProtocol p = protocol;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("protocol", LocalPcaProtocol.FORMAT);
    m.put("protocolId", p.id());
    m.put("seed", p.seed().toString());
    m.put("d", p.dimension());
    m.put("t", p.sketchCols());
    m.put("epsilon", p.privacy().epsilon());
    m.put("delta", p.privacy().delta());
    m.put("clip", p.clip());
    m.put("topic", topic);
    m.put("perReportSigma", p.noise().sigma());
    m.put("perReportSensitivity", p.noise().sensitivity());
    m.put("usage", "LocalPcaProtocol.of(PublicSeed.parse(seed), d, t, clip, new PrivacyParams("
        + "epsilon, delta)) must give protocolId; send LocalReportCodec.encode(LocalRandomizer"
        + ".create(protocol).report(row)) to the topic, one report per user, without a key");
    return m;
  }

  @Override
  public String neighbouring() {
    return "local: each report is (epsilon, delta)-DP with respect to replacing its user's row x"
        + " by any other row x' (||x||_2, ||x'||_2 <= " + protocol.clip() + ", rows clipped by"
        + " the client); releases are post-processing of the sum of the reports";
  }

  @Override
  public String banner(ServiceConfig config, String bootstrap, int httpPort, int operatorPort) {
    LocalPcaProtocol p = protocol;
    return String.format(Locale.ROOT, """
          dplrf serving local-DP PCA of rows of dimension d = %d (rank %d, reports d x t = %d x %d),\
           each report (%s, %s)-DP by itself, rows clipped by clients to norm %s; T = %d releases
            protocol:       http://%s:%d/v1/local/protocol   (id %s, public seed %s)
            push reports:   Kafka %s, topic %s (LocalReportCodec bytes, no key)
                            e.g. ./dplrf produce --local --input FILE.csv --seed %s --epsilon %s \
          --delta %s --clip %s --sketch-cols %d --topic %s --bootstrap-servers %s
            pull releases:  http://%s:%d/v1/release/latest   (status: /v1/status)
            operator:       http://%s:%d/metrics, /admin/ingest%s
            state:          %s""", config.local().cols(), config.local().rank(), config.local().cols(),
          p.sketchCols(), config.epsilon(), config.delta(), config.clip(),
          config.local().epochs(), config.bind(), httpPort, p.id(),
          p.seed(), bootstrap, config.topic(), p.seed(),
          config.epsilon(), config.delta(), config.clip(), p.sketchCols(),
          config.topic(), bootstrap, config.bind(), httpPort, config.operatorBind(),
          operatorPort, config.adminToken().isPresent() ? " (token required)" : "",
          config.stateDir());
  }
}
