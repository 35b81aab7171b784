package io.dplrf.deploy.serve.local;

import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.deploy.oneshot.LocalPcaOneShot;
import io.dplrf.release.Factorization;
import io.dplrf.release.Pca;
import io.dplrf.release.RobustRelease;
import io.dplrf.release.UtilityReport;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.PublicSeed;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Mode local with {@code local-mechanism = local-robust} (docs/local-service.md):
 * LOCAL-ROBUST-PCA (paper 001, Appendix C, Algorithm 3), whose reports are pure ε-DP p-stable
 * sketches of one user slot each and whose release is ROBUST-PCA's post-processing (lines
 * 10–14) of their sums. Immutable and thread-safe.
 */
final class ServedRobustPca implements ServedProtocol {
  /**
   * The δ handed to {@link PrivacyParams} (which requires δ &gt; 0): LOCAL-ROBUST-PCA is pure
   * ε-LDP, so neither its calibration ({@code RobustPlan}: Laplace, ε only) nor its protocol id
   * reads δ. Everything published says δ = 0.
   */
  static final double UNUSED_DELTA = Double.MIN_VALUE;

  private final LocalRobustProtocol protocol;

  ServedRobustPca(LocalRobustProtocol protocol) {
    this.protocol = protocol;
  }

  /**
   * The protocol of this service: m = rows, d = cols, k = rank, t = sketch-cols and v =
   * sketch-rows (defaults as {@code dplrf pca --mechanism local-robust}), p, C = clip (ℓ1), ε
   * per report, the default stable clip.
   */
  static ServedRobustPca of(PublicSeed seed, ServiceConfig config) {
    return new ServedRobustPca(LocalRobustProtocol.of(seed, config.local().rows(), config.local().cols(),
        config.local().rank(), config.local().sketchCols().isPresent() ? config.local().sketchCols().getAsInt() : null,
        config.local().sketchRows().isPresent() ? config.local().sketchRows().getAsInt() : null, config.local().p(),
        config.clip(), RobustMatrices.DEFAULT_STABLE_CLIP,
        new PrivacyParams(config.epsilon(), UNUSED_DELTA)));
  }

  @Override
  public LocalRobustProtocol protocol() {
    return protocol;
  }

  @Override
  public LocalTarget.StateTag stateTag() {
    return LocalTarget.DPLRLRB1;
  }

  /**
   * V = ROBUST-PCA's basis of the summed sketches ({@link RobustRelease#basis}, as {@code dplrf
   * pca --mechanism local-robust}), d×k orthonormal, served as V S Vᵀ (U = V), S in sketch
   * units. The utility report gives the per-report Laplace scales only: the noise of the sums
   * grows with the number of reports, which is not released.
   */
  @Override
  public ServedRelease release(List<Dense> sums, long reports, int epoch, int k, Instant at) {
    LocalRobustProtocol p = protocol;
    Pca.Subspace sub = LocalPcaOneShot.basis(p, sums, reports, k);
    Factorization f = new Factorization(sub.v(), sub.s(), sub.v());
    SketchSizes sz = p.sizes();
    UtilityReport report = new UtilityReport("local-robust", k,
        List.of(p.plan().yr().scale((long) sz.t() * sz.n()),
            p.plan().z().scale((long) sz.v() * sz.v())),
        List.of(), sub.s(), 0.0,
        "not computed: the sums hold the Laplace noise of every report (sigma*sqrt(reports) per"
            + " entry); the number of reports is not released",
        List.of("local-DP: every report is pure epsilon-DP by itself (delta = 0); this release is"
            + " post-processing of their sums and spends no budget",
            "noise scales are per report: sigma = sqrt(2)*b of one report, sensitivity its exact"
            + " l1 sensitivity (docs/privacy/local-pca.md section 4)",
            "S is in sketch units (p-stable sketches): it orders the directions, it does not"
            + " estimate the eigenvalues of A^T A"));
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("mechanism", "local-robust");
    meta.put("protocolId", p.id());
    meta.put("publicSeed", p.seed().toString());
    meta.put("users", sz.m());
    meta.put("sketchCols", sz.t());
    meta.put("sketchRows", sz.v());
    meta.put("p", p.p());
    meta.put("epsilon", p.privacy().epsilon());
    meta.put("delta", 0.0);
    return new ServedRelease(1, epoch, f, report, at, meta);
  }

  @Override
  public String released() {
    return "robust principal directions from local-DP reports (LOCAL-ROBUST-PCA)";
  }

  @Override
  public Map<String, Object> protocolJson(String topic) {
    LocalRobustProtocol p = protocol;
    SketchSizes sz = p.sizes();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("protocol", LocalRobustProtocol.FORMAT);
    m.put("mechanism", "local-robust");
    m.put("protocolId", p.id());
    m.put("seed", p.seed().toString());
    m.put("m", sz.m());
    m.put("d", sz.n());
    m.put("k", sz.k());
    m.put("t", sz.t());
    m.put("v", sz.v());
    m.put("p", p.p());
    m.put("clip", p.clip());
    m.put("clipNorm", "l1");
    m.put("stableClip", p.stableClip());
    m.put("epsilon", p.privacy().epsilon());
    m.put("delta", 0.0);
    m.put("topic", topic);
    m.put("perReportLaplaceScale", parts(p.plan().yr().scale(), p.plan().z().scale()));
    m.put("perReportSensitivity", parts(p.plan().yr().sensitivityWithSlack(),
        p.plan().z().sensitivityWithSlack()));
    m.put("usage", "LocalRobustProtocol.of(PublicSeed.parse(seed), m, d, k, t, v, p, clip, "
        + "stableClip, new PrivacyParams(epsilon, any delta)) must give protocolId; the user of"
        + " slot i (0 <= i < m, one slot per user, assigned by the operator) sends"
        + " LocalReportCodec.encode(LocalRandomizer.create(protocol).report(i, row))"
        + " to the topic, once, without a key; a second report for a slot is not counted");
    return m;
  }

  private static Map<String, Object> parts(double yr, double z) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("yr", yr);
    m.put("z", z);
    return m;
  }

  @Override
  public String neighbouring() {
    return "one row, local: each report is pure epsilon-DP (delta = 0) with respect to replacing"
        + " its user's row x by any other row x' (||x||_1, ||x'||_1 <= " + protocol.clip()
        + ", rows clipped by the client) for the user's public slot; one report per slot is"
        + " counted; releases are post-processing of the sums of the reports";
  }

  @Override
  public String banner(ServiceConfig config, String bootstrap, int httpPort, int operatorPort) {
    LocalRobustProtocol p = protocol;
    SketchSizes sz = p.sizes();
    return String.format(Locale.ROOT, """
          dplrf serving LOCAL-ROBUST-PCA of m = %d user slots, rows of dimension d = %d (rank %d,\
           t = %d, v = %d, p = %s), each report pure %s-DP by itself, rows clipped by clients to\
           l1 norm %s; T = %d releases
            protocol:       http://%s:%d/v1/local/protocol   (id %s, public seed %s)
            push reports:   Kafka %s, topic %s (LocalReportCodec bytes, one per slot, no key)
                            e.g. ./dplrf produce --local --mechanism local-robust --input FILE.csv \
          --seed %s --rows %d --cols %d --rank %d --sketch-cols %d --sketch-rows %d --p %s --clip %s \
          --epsilon %s --protocol-id %s --topic %s --bootstrap-servers %s
            pull releases:  http://%s:%d/v1/release/latest   (status: /v1/status)
            operator:       http://%s:%d/metrics, /admin/ingest%s
            state:          %s""", sz.m(), sz.n(), sz.k(), sz.t(), sz.v(), p.p(),
          p.privacy().epsilon(), p.clip(), config.local().epochs(), config.bind(), httpPort, p.id(),
          p.seed(), bootstrap, config.topic(), p.seed(), sz.m(), sz.n(), sz.k(), sz.t(), sz.v(),
          p.p(), p.clip(), p.privacy().epsilon(), p.id(), config.topic(), bootstrap, config.bind(),
          httpPort, config.operatorBind(), operatorPort,
          config.adminToken().isPresent() ? " (token required)" : "", config.stateDir());
  }
}
