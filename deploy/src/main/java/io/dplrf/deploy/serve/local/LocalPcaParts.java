package io.dplrf.deploy.serve.local;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.release.Factorization;
import io.dplrf.release.Pca;
import io.dplrf.release.UtilityReport;
import io.dplrf.sketch.files.StateFiles;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Locale;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pieces of {@code mode = local} (docs/local-service.md) that the {@link Service} wires: the
 * public seed, the {@link LocalPcaProtocol} clients fetch from {@code GET /v1/local/protocol}, and
 * the release of the aggregate. Stateless; thread-safe.
 *
 * <p><b>No budget is spent by the server.</b> Each report is (ε, δ)-DP for its user's row on its
 * own; the sum and every release are post-processing of the reports. T (epochs) only bounds how
 * many releases are made; it is not a privacy parameter here.
 */
final class LocalPcaParts {
  /** The public seed's file in the state directory: 64 hex digits and a newline. */
  static final String SEED_FILE = "public-seed";

  private LocalPcaParts() {}

  /**
   * The protocol of this service: d = cols, t = sketch-cols (default as {@code dplrf pca
   * --mechanism local}), C = clip, (ε, δ) per report, and the public seed of {@link #seed}.
   */
  static LocalPcaProtocol protocol(ServiceConfig config) throws IOException {
    PublicSeed seed = seed(config.stateDir(), config.local().seed().orElse(null));
    return LocalPcaProtocol.of(seed, config.local().cols(), config.local().localSketchCols(), config.clip(),
        new PrivacyParams(config.epsilon(), config.delta()));
  }

  /** Mode local's aggregate for the configured {@code local-mechanism}, with its protocol. */
  static LocalAggregate aggregate(ServiceConfig config) throws IOException {
    return config.local().robust()
        ? new LocalRobustTarget(LocalRobustParts.protocol(config), config.local().epochs())
        : new LocalTarget(protocol(config), config.local().epochs());
  }

  /**
   * The public seed: the one in {@code stateDir/public-seed} if there is one (it must equal
   * {@code configured} when that is set: the reports summed so far were made with it), else
   * {@code configured}, else a fresh one from SecureRandom ({@link PublicSeed#random}); a new
   * seed is written (atomically) before anything is consumed, so a restart keeps it.
   */
  static PublicSeed seed(Path stateDir, PublicSeed configured) throws IOException {
    Path file = stateDir.resolve(SEED_FILE);
    if (Files.exists(file)) {
      PublicSeed stored;
      try {
        stored = PublicSeed.parse(Files.readString(file, StandardCharsets.US_ASCII).strip());
      } catch (IllegalArgumentException e) {
        throw new IOException(file + " does not hold a public seed: " + e.getMessage(), e);
      }
      if (configured != null && !configured.equals(stored)) {
        throw new IOException("setting seed (" + configured + ") differs from the seed of this "
            + "state directory (" + file + ": " + stored + "), with which its reports were made; "
            + "unset seed, or use a new state directory for a new protocol");
      }
      return stored;
    }
    PublicSeed seed = configured != null ? configured : PublicSeed.random();
    StateFiles.createDirectories(stateDir);
    Path temp = stateDir.resolve(SEED_FILE + ".tmp");
    Files.deleteIfExists(temp);
    try (FileChannel ch = StateFiles.createForWriting(temp)) {
      OutputStream out = Channels.newOutputStream(ch);
      out.write((seed + "\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      ch.force(true);
    }
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
    StateFiles.fsyncDirectory(stateDir);
    return seed;
  }

  /** The body of {@code GET /v1/local/protocol}: everything a client needs, all public. */
  static Map<String, Object> protocolJson(LocalPcaProtocol p, String topic) {
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

  /**
   * The release after {@code epoch}: V = top-k left singular vectors of the sum Y
   * ({@link Pca#fromRangeSketch}, as {@code dplrf pca --mechanism local}), served as the
   * factorization V S Vᵀ of AᵀA (U = V: AᵀA is symmetric).
   *
   * <p>The utility report gives the per-report noise scale only: the noise of Y has standard
   * deviation σ√m per entry, so its floor ≈ σ√m(√d + √t) needs the number of reports m, which
   * the public API does not release (as the offline release.json does not).
   */
  static ServedRelease release(LocalTarget target, int epoch, int k, Instant at) {
    LocalPcaProtocol p = target.protocol();
    Pca.Subspace sub = Pca.fromRangeSketch(target.closedSum(), k);
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

  /** The neighbouring relation of local mode, in words. */
  static String neighbouring(double clip) {
    return "local: each report is (epsilon, delta)-DP with respect to replacing its user's row x"
        + " by any other row x' (||x||_2, ||x'||_2 <= " + clip + ", rows clipped by the client);"
        + " releases are post-processing of the sum of the reports";
  }

  /** The status message: T bounds releases, not privacy. */
  static String message(int released, int epochs) {
    String t = "T = " + epochs + " bounds the number of releases only: it is not a privacy"
        + " parameter in local mode (the server spends no budget; each report is private by"
        + " itself)";
    return released >= epochs ? "epoch T reached: no further releases; " + t
        : released == 0 ? "waiting for the first epoch to close; " + t
        : "releasing after every epoch; " + t;
  }

  /** The startup banner: where clients fetch the protocol, push reports and pull releases. */
  static String banner(ServiceConfig config, LocalPcaProtocol p, String bootstrap, int httpPort,
      int operatorPort) {
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
          config.topic(), bootstrap, config.bind(), httpPort, config.bind(),
          operatorPort, config.adminToken().isPresent() ? " (token required)" : "",
          config.stateDir());
  }
}
