package io.dplrf.deploy.cli;

import io.dplrf.client.LocalRandomizer;
import io.dplrf.client.LocalReportCodec;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.deploy.io.InputException;
import io.dplrf.deploy.io.RowInput;
import io.dplrf.ingest.produce.ReportProducer;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * {@code dplrf produce --local --mechanism local-robust}: one user per row of a file, the row at
 * (0-based) position r in slot {@code first-slot + r}. For each row a fresh {@link
 * LocalRandomizer} (the user's own noise) makes a LOCAL-ROBUST-PCA report, and only the
 * encoded report ({@link LocalReportCodec}, with its slot) is sent, one Kafka record each,
 * no key. The parameters must be those the server published at {@code /v1/local/protocol};
 * {@code --protocol-id} checks that. The rows are counted before anything is sent, so a file with
 * more rows than free slots sends nothing.
 */
final class LocalRobustProduceCommand {
  private LocalRobustProduceCommand() {}

  static int run(Args a, RowInput in, PrintStream out) throws Exception {
    if (a.string("delta", null) != null) {
      throw new Args.UsageException("produce --local --mechanism local-robust: --delta does not"
          + " apply (each report is pure epsilon-LDP)");
    }
    PublicSeed seed = PublicSeed.parse(a.required("seed"));
    Integer colsOpt = a.integerOrNull("cols");
    int d = colsOpt != null ? colsOpt : in.scanCols();
    if (d < 1) {
      throw new InputException("cannot tell the dimension: no rows (or pass --cols)");
    }
    LocalRobustProtocol protocol = LocalRobustProtocol.of(seed, requiredInt(a, "rows"), d,
        requiredInt(a, "rank"), a.integerOrNull("sketch-cols"), a.integerOrNull("sketch-rows"),
        a.number("p", 1.0), a.number("clip", 1.0), RobustMatrices.DEFAULT_STABLE_CLIP,
        // pure epsilon-LDP: delta is read neither by the calibration nor by the protocol id
        new PrivacyParams(a.requiredNumber("epsilon"), Double.MIN_VALUE));
    String expected = a.string("protocol-id", null);
    if (expected != null && !expected.equals(protocol.id())) {
      throw new IllegalArgumentException("protocol id " + protocol.id() + " of these parameters "
          + "differs from --protocol-id " + expected + ": the seed, rows, cols, rank, sketch-cols,"
          + " sketch-rows, p, clip or epsilon differ from the server's; reports would be refused");
    }
    int first = a.integer("first-slot", 0);
    long rows = countRows(in, d);
    if (first < 0 || first + rows > protocol.slots()) {
      throw new IllegalArgumentException("first-slot " + first + " + " + rows + " rows exceeds"
          + " the protocol's " + protocol.slots() + " user slots (slots 0.."
          + (protocol.slots() - 1) + "); nothing sent");
    }
    String topic = a.string("topic", "dplrf-local-robust-reports");
    String bootstrap = a.string("bootstrap-servers", "127.0.0.1:9092");
    int reportBytes = LocalReportCodec.encode(
        LocalRandomizer.create(protocol).report(0, new double[d])).length;
    long sent;
    try (ReportProducer p = ReportProducer.create(
        ProduceCommand.clientProperties(a, bootstrap), topic, reportBytes)) {
      sent = p.send(sink -> reports(protocol, first, in, sink));
    }
    out.printf("sent %,d local-robust reports (protocol %s, slots %d..%d) to %s on %s%n", sent,
        protocol.id(), first, first + sent - 1, topic, bootstrap);
    return 0;
  }

  private static int requiredInt(Args a, String name) {
    Integer v = a.integerOrNull(name);
    if (v == null) {
      throw new Args.UsageException("produce --local --mechanism local-robust: --" + name
          + " is required (the server's /v1/local/protocol gives it)");
    }
    return v;
  }

  private static long countRows(RowInput in, int d) throws InputException {
    long[] n = {0};
    in.forEachRow(d, row -> n[0]++);
    return n[0];
  }

  /**
   * Encodes one report per row, row r in slot {@code first + r}, each from its own randomizer (a
   * user of its own): the sink receives report bytes only, never a row.
   */
  static void reports(LocalRobustProtocol protocol, int first, RowInput in,
      Consumer<byte[]> sink) throws IOException {
    int[] slot = {first};
    try {
      in.forEachRow(protocol.dimension(), row -> sink.accept(LocalReportCodec.encode(
          LocalRandomizer.create(protocol).report(slot[0]++, row))));
    } catch (InputException e) {
      throw new IOException(e.getMessage(), e);
    }
  }
}
