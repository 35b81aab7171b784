package io.dplrf.deploy.cli;

import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalProtocol;
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
import java.util.Set;
import java.util.function.Consumer;

/**
 * {@code dplrf produce --local [--mechanism local-robust]}: one user per row of a file; for each
 * row the client library's randomizer ({@link LocalRandomizer}, the user's own noise) makes a
 * report, and only the encoded report ({@link LocalReportCodec}) is sent, one Kafka record each,
 * no key. The protocol's parameters must be those the server published at {@code
 * /v1/local/protocol}; {@code --protocol-id} checks that; {@code serve --mode local} sums them.
 *
 * <p>What differs per mechanism is the parameters: {@code local} (local-DP PCA) takes the seed,
 * d, t, C, ε, δ; {@code local-robust} (LOCAL-ROBUST-PCA) takes the seed, m ({@code --rows}), d,
 * k, t, v, p, C (ℓ1) and ε, no δ (pure ε), and puts the row at (0-based) position r in slot
 * {@code first-slot + r}. Its rows are counted before anything is sent, so a file with more rows
 * than free slots sends nothing.
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
    boolean robust = mechanism.equals("local-robust");
    LocalProtocol protocol = robust ? robustProtocol(a, in) : pcaProtocol(a, in);
    String expected = a.string("protocol-id", null);
    if (expected != null && !expected.equals(protocol.id())) {
      throw new IllegalArgumentException("protocol id " + protocol.id() + " of these parameters "
          + "differs from --protocol-id " + expected + ": the " + (robust
              ? "seed, rows, cols, rank, sketch-cols, sketch-rows, p, clip or epsilon"
              : "seed, cols, sketch-cols, clip, epsilon or delta")
          + " differ from the server's; reports would be refused");
    }
    int first = 0;
    if (robust) {
      first = a.integer("first-slot", 0);
      long rows = countRows(in, protocol.dimension());
      if (first < 0 || first + rows > protocol.slots()) {
        throw new IllegalArgumentException("first-slot " + first + " + " + rows + " rows exceeds"
            + " the protocol's " + protocol.slots() + " user slots (slots 0.."
            + (protocol.slots() - 1) + "); nothing sent");
      }
    }
    String topic = a.string("topic", robust ? "dplrf-local-robust-reports" : "dplrf-local-reports");
    String bootstrap = a.string("bootstrap-servers", "127.0.0.1:9092");
    int firstSlot = first;
    long sent;
    try (ReportProducer p = ReportProducer.create(ProduceCommand.clientProperties(a, bootstrap, topic),
        topic, LocalReportCodec.length(protocol))) {
      sent = p.send(sink -> reports(protocol, firstSlot, in, sink));
    }
    if (robust) {
      out.printf("sent %,d local-robust reports (protocol %s, slots %d..%d) to %s on %s%n", sent,
          protocol.id(), first, first + sent - 1, topic, bootstrap);
    } else {
      out.printf("sent %,d local reports (protocol %s, %d x %d values each) to %s on %s%n", sent,
          protocol.id(), protocol.dimension(), ((LocalPcaProtocol) protocol).sketchCols(), topic,
          bootstrap);
    }
    return 0;
  }

  /** {@code local}: the seed, d ({@code --cols} or the file's), t (default d), C, (ε, δ). */
  private static LocalPcaProtocol pcaProtocol(Args a, RowInput in) throws Exception {
    for (String o : ROBUST_ONLY) {
      if (a.string(o, null) != null) {
        throw new Args.UsageException("produce --local: --" + o + " applies to --mechanism"
            + " local-robust only");
      }
    }
    PublicSeed seed = PublicSeed.parse(a.required("seed"));
    PrivacyParams privacy = new PrivacyParams(a.requiredNumber("epsilon"), a.requiredNumber("delta"));
    double clip = a.number("clip", 1.0);
    int d = dimension(a, in);
    Integer tOpt = a.integerOrNull("sketch-cols");
    return LocalPcaProtocol.of(seed, d, tOpt != null ? tOpt : d, clip, privacy);
  }

  /**
   * {@code local-robust}: the seed, m = {@code --rows}, d, k = {@code --rank}, t, v, p, C (ℓ1),
   * the default stable clip, ε; {@code --delta} is refused.
   */
  private static LocalRobustProtocol robustProtocol(Args a, RowInput in) throws Exception {
    if (a.string("delta", null) != null) {
      throw new Args.UsageException("produce --local --mechanism local-robust: --delta does not"
          + " apply (each report is pure epsilon-LDP)");
    }
    PublicSeed seed = PublicSeed.parse(a.required("seed"));
    int d = dimension(a, in);
    return LocalRobustProtocol.of(seed, requiredInt(a, "rows"), d,
        requiredInt(a, "rank"), a.integerOrNull("sketch-cols"), a.integerOrNull("sketch-rows"),
        a.number("p", 1.0), a.number("clip", 1.0), RobustMatrices.DEFAULT_STABLE_CLIP,
        // pure epsilon-LDP: delta is read neither by the calibration nor by the protocol id
        new PrivacyParams(a.requiredNumber("epsilon"), Double.MIN_VALUE));
  }

  /** d: {@code --cols}, or the number of values in the file's first row. */
  private static int dimension(Args a, RowInput in) throws InputException {
    Integer colsOpt = a.integerOrNull("cols");
    int d = colsOpt != null ? colsOpt : in.scanCols();
    if (d < 1) {
      throw new InputException("cannot tell the dimension: no rows (or pass --cols)");
    }
    return d;
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
   * Encodes one report per row, each from its own randomizer (a user of its own); with slots,
   * row r in slot {@code first + r}. The sink receives report bytes only, never a row.
   */
  static void reports(LocalProtocol protocol, int first, RowInput in, Consumer<byte[]> sink)
      throws IOException {
    int[] slot = {first};
    try {
      in.forEachRow(protocol.dimension(), row -> {
        LocalRandomizer user = LocalRandomizer.create(protocol);
        sink.accept(LocalReportCodec.encode(
            protocol.hasSlots() ? user.report(slot[0]++, row) : user.report(row)));
      });
    } catch (InputException e) {
      throw new IOException(e.getMessage(), e);
    }
  }
}
