package io.dplrf.deploy.cli;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalRandomizer;
import io.dplrf.client.LocalReportCodec;
import io.dplrf.deploy.io.InputException;
import io.dplrf.deploy.io.RowInput;
import io.dplrf.ingest.produce.ReportProducer;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.Consumer;

/**
 * {@code dplrf produce --local}: one user per row of a file; for each row the client library's
 * randomizer ({@link LocalRandomizer}, the user's own noise) makes a report, and only the encoded
 * report ({@link LocalReportCodec}) is sent, one Kafka record each, no key. The protocol's
 * parameters (seed, d, t, C, ε, δ) must be those the server published; {@code --protocol-id}
 * checks that; {@code serve --mode local} sums them. {@code --mechanism local-robust} sends
 * LOCAL-ROBUST-PCA reports instead ({@link LocalRobustProduceCommand}).
 */
final class LocalProduceCommand {
  /** Options only {@code produce --local} takes. */
  static final Set<String> OPTIONS = Set.of("seed", "epsilon", "delta", "clip", "cols",
      "sketch-cols", "protocol-id", "mechanism", "rows", "rank", "sketch-rows", "p", "first-slot");

  /** Options of {@code --mechanism local-robust} only. */
  private static final Set<String> ROBUST_ONLY =
      Set.of("rows", "rank", "sketch-rows", "p", "first-slot");

  private LocalProduceCommand() {}

  static int run(Args a, PrintStream out) throws Exception {
    if (a.string("key", null) != null || a.string("batch", null) != null
        || a.string("rate", null) != null) {
      throw new Args.UsageException("produce --local: --key, --batch and --rate do not apply "
          + "(one report per record, no key: a key would link reports to users)");
    }
    String mechanism = a.string("mechanism", "local");
    if (!mechanism.equals("local") && !mechanism.equals("local-robust")) {
      throw new Args.UsageException("produce --local: --mechanism must be local or local-robust."
          + " Provided value: " + mechanism);
    }
    RowInput in = RowInput.open(Path.of(a.required("input")));
    if (mechanism.equals("local-robust")) {
      return LocalRobustProduceCommand.run(a, in, out);
    }
    for (String o : ROBUST_ONLY) {
      if (a.string(o, null) != null) {
        throw new Args.UsageException("produce --local: --" + o + " applies to --mechanism"
            + " local-robust only");
      }
    }
    PublicSeed seed = PublicSeed.parse(a.required("seed"));
    PrivacyParams privacy = new PrivacyParams(a.requiredNumber("epsilon"), a.requiredNumber("delta"));
    double clip = a.number("clip", 1.0);
    Integer colsOpt = a.integerOrNull("cols");
    int d = colsOpt != null ? colsOpt : in.scanCols();
    if (d < 1) {
      throw new InputException("cannot tell the dimension: no rows (or pass --cols)");
    }
    Integer tOpt = a.integerOrNull("sketch-cols");
    LocalPcaProtocol protocol =
        LocalPcaProtocol.of(seed, d, tOpt != null ? tOpt : d, clip, privacy);
    String expected = a.string("protocol-id", null);
    if (expected != null && !expected.equals(protocol.id())) {
      throw new IllegalArgumentException("protocol id " + protocol.id() + " of these parameters "
          + "differs from --protocol-id " + expected + ": the seed, cols, sketch-cols, clip, "
          + "epsilon or delta differ from the server's; reports would be refused");
    }
    String topic = a.string("topic", "dplrf-local-reports");
    String bootstrap = a.string("bootstrap-servers", "127.0.0.1:9092");
    int reportBytes = LocalReportCodec.encode(
        LocalRandomizer.create(protocol).report(new double[d])).length;
    long sent;
    try (ReportProducer p = ReportProducer.create(
        ProduceCommand.clientProperties(a, bootstrap), topic, reportBytes)) {
      sent = p.send(sink -> reports(protocol, in, sink));
    }
    out.printf("sent %,d local reports (protocol %s, %d x %d values each) to %s on %s%n", sent,
        protocol.id(), d, protocol.sketchCols(), topic, bootstrap);
    return 0;
  }

  /**
   * Encodes one report per row, each from its own randomizer (a user of its own): the sink
   * receives report bytes only, never a row.
   */
  static void reports(LocalPcaProtocol protocol, RowInput in, Consumer<byte[]> sink)
      throws IOException {
    try {
      in.forEachRow(protocol.dimension(),
          row -> sink.accept(LocalReportCodec.encode(LocalRandomizer.create(protocol).report(row))));
    } catch (InputException e) {
      throw new IOException(e.getMessage(), e);
    }
  }
}
