package io.dplrf.deploy.cli;

import io.dplrf.deploy.config.KafkaClientSettings;
import io.dplrf.deploy.io.IdMapping;
import io.dplrf.deploy.io.InputException;
import io.dplrf.deploy.io.KeyedCsvInput;
import io.dplrf.deploy.io.MatrixInput;
import io.dplrf.deploy.io.RowInput;
import io.dplrf.ingest.produce.RowProducer;
import io.dplrf.ingest.produce.UpdateProducer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * {@code dplrf produce}: pushes a matrix file as packed 16-byte update records, with a progress
 * line on a terminal. The file is read whole before any connection, and everything that can be
 * checked without the service is checked then: a bad line, and with {@code --rows}/{@code --cols}
 * an index outside the service's shape, is refused with its number before anything is sent. The
 * service's shape is not asked for: produce knows only the Kafka bootstrap address, and the
 * service's HTTP port may be elsewhere or closed to it.
 */
final class ProduceCommand {
  static final String USAGE = """
      usage: dplrf produce --input FILE [--topic dplrf-updates] [--bootstrap-servers 127.0.0.1:9092]
                           [--rows M] [--cols N] [--rate UPDATES_PER_SECOND] [--batch 64]
                           [--key KEY | --key-column NAME|INDEX]
        FILE   Matrix Market (.mtx, 1-based) or CSV lines i,j,delta (0-based)
        --rows, --cols  the service's rows and cols: the file is read whole before anything is
                      sent, and a line with an index outside them is refused with its number.
                      Without them, a CSV file whose smallest row and column index are both 1
                      gets a warning (1-based ids), and the service's own check dead-letters
                      records with an index out of its range.
        --batch       updates per Kafka record. The service applies or dead-letters a record
                      whole: one bad update costs the record's other updates too (the service
                      log names the first of each reason; counts at /admin/ingest).
        --key         one record key for the whole file: the privacy unit of the service's
                      privacy-unit=key mode
        --key-column  each update's own key from a CSV column (a user id): its name in a header
                      line or its 0-based index; fields 0-2 stay i,j,delta, and the column may
                      be one of them. A line with an empty key is refused.
        --ids DIR     FILE is CSV lines id_i,id_j,delta[,...] with your own ids (any text without
                      a comma; a header line is skipped): each id takes a 0-based index, kept in
                      DIR/rows.ids and DIR/cols.ids (line k + 1 holds the id of index k), which
                      later runs extend. Only the indices are sent; DIR stays with you and is
                      raw data (the ids present). With --rows/--cols, more distinct ids than
                      that are refused before anything is sent.
             dplrf produce --format rows --input FILE [--cols d] [--topic dplrf-rows]
                           [--bootstrap-servers ...]
        FILE   CSV of dense rows (no header) or Matrix Market; one row record per row (mode rows)
        --cols the service's cols (d): a row of another width is refused with its line before
               anything is sent. Without it every row must have the first row's width.
             dplrf produce --local --input FILE --seed HEX --epsilon E --delta D [--clip 1]
                           [--cols d] [--sketch-cols t (default d)] [--protocol-id ID]
                           [--topic dplrf-local-reports] [--bootstrap-servers 127.0.0.1:9092]
        local-DP PCA: FILE holds one row per user (CSV dense rows or Matrix Market); each row is
        randomized by the client library (clip to C, sketch with the public seed's Phi, the
        user's own noise) and only the report is sent. --protocol-id checks the parameters
        against the id the server published.
             dplrf produce --local --mechanism local-robust --input FILE --seed HEX --rows M
                           --rank K --epsilon E [--clip 1 (l1)] [--cols d] [--sketch-cols t]
                           [--sketch-rows v] [--p 1] [--first-slot 0] [--protocol-id ID]
                           [--topic dplrf-local-robust-reports] [--bootstrap-servers ...]
        LOCAL-ROBUST-PCA: the row at position r of FILE is the user of slot first-slot + r (of
        the M public slots); its report carries the slot, and the server counts one per slot.
        Take every parameter from the server's /v1/local/protocol (its banner prints the command).
      Every form takes --kafka-config FILE: Kafka client settings (security.protocol, sasl.*,
      ssl.*, ...) in the properties format of Kafka's --command-config.
      """;

  private static final Set<String> OPTIONS = union(
      Set.of("input", "topic", "bootstrap-servers", "kafka-config", "rate", "batch", "key",
          "key-column", "format", "ids"),
      LocalProduceCommand.OPTIONS);

  /** Local options that the other forms take too: the service's shape, checked before sending. */
  private static final Set<String> SHAPE_OPTIONS = Set.of("rows", "cols");

  private static Set<String> union(Set<String> a, Set<String> b) {
    java.util.Set<String> u = new java.util.HashSet<>(a);
    u.addAll(b);
    return Set.copyOf(u);
  }

  private ProduceCommand() {}

  static int run(String[] argv, PrintStream out, PrintStream err) throws Exception {
    Args a = Args.parse("produce", argv, 1, OPTIONS, Set.of("local"));
    if (a.flag("local")) {
      return LocalProduceCommand.run(a, out);
    }
    for (String o : LocalProduceCommand.OPTIONS) {
      if (!SHAPE_OPTIONS.contains(o) && a.string(o, null) != null) {
        throw new Args.UsageException("produce: --" + o + " applies to --local only");
      }
    }
    String format = a.string("format", "updates");
    if (format.equals("rows")) {
      return rows(a, out);
    }
    if (!format.equals("updates")) {
      throw new Args.UsageException("produce: --format must be updates or rows. Provided value: " + format);
    }
    int rows = dimension(a, "rows");
    int cols = dimension(a, "cols");
    String key = a.string("key", null);
    String keyColumn = a.string("key-column", null);
    if (key != null && keyColumn != null) {
      throw new Args.UsageException("produce: give --key (one key for the file) or --key-column"
          + " (a key per line), not both");
    }
    Path input = Path.of(a.required("input"));
    if (a.string("ids", null) != null) {
      if (keyColumn != null) {
        throw new Args.UsageException("produce: --ids with --key-column is not supported: map"
            + " the ids, or key the records, in one run");
      }
      return withIds(a, out, err, input, Path.of(a.string("ids", null)), rows, cols, key);
    }
    KeyedCsvInput keyed = keyColumn == null ? null : KeyedCsvInput.open(input, keyColumn);
    MatrixInput in = keyed != null ? null : MatrixInput.open(input);
    // The whole file is read once before any connection: a bad line (or, with --rows/--cols,
    // an index outside the service's shape) is refused with its number before anything is sent,
    // never after the lines above it are in the topic.
    int[] min = {Integer.MAX_VALUE, Integer.MAX_VALUE};
    try {
      if (keyed != null) {
        keyed.forEach(rows, cols, (k, i, j, d) -> smallest(min, i, j));
      } else {
        in.forEach(rows, cols, (i, j, d) -> smallest(min, i, j));
      }
    } catch (InputException e) {
      throw idsHint(e);
    }
    if ((keyed != null || in.rows().isEmpty()) && min[0] == 1 && min[1] == 1) {
      err.println("dplrf produce: warning: the smallest row and column index in " + input
          + " are both 1, but CSV indices are 0-based: if the ids are 1-based, subtract 1 (else"
          + " row 0 and column 0 stay empty and the largest ids may be out of the service's range)");
    }
    String topic = a.string("topic", "dplrf-updates");
    String bootstrap = a.string("bootstrap-servers", "127.0.0.1:9092");
    double rate = a.number("rate", Double.POSITIVE_INFINITY);
    int batch = a.integer("batch", 64);
    boolean terminal = System.console() != null;
    long[] lastPrint = {0};
    UpdateProducer.Progress progress = (updates, records) -> {
      long now = System.nanoTime();
      if (terminal && now - lastPrint[0] > 200_000_000L) {
        lastPrint[0] = now;
        out.printf("\r%,d updates in %,d records sent", updates, records);
        out.flush();
      }
    };
    long sent;
    long records;
    try (UpdateProducer p = UpdateProducer.create(clientProperties(a, bootstrap, topic), topic,
        batch, key == null ? null : key.getBytes(StandardCharsets.UTF_8), rate, progress)) {
      sent = keyed != null ? p.sendKeyed(sink -> {
        try {
          keyed.forEach(sink::accept);
        } catch (InputException e) {
          throw new IOException(e.getMessage(), e);
        }
      }) : p.send(sink -> {
        try {
          in.forEach(sink::accept);
        } catch (InputException e) {
          throw new IOException(e.getMessage(), e);
        }
      });
      records = p.recordsSent();
    }
    out.printf("%ssent %,d updates to %s on %s in %,d record%s of at most %,d updates (the service"
        + " applies or dead-letters each record whole)%n", terminal ? "\r" : "", sent, topic,
        bootstrap, records, records == 1 ? "" : "s", batch);
    return 0;
  }

  /**
   * {@code --ids DIR}: a CSV of the user's own ids, mapped to indices by the producer's {@link
   * IdMapping} in {@code DIR}; the whole file is read and the mapping saved before anything is
   * sent, and only indices are sent.
   */
  private static int withIds(Args a, PrintStream out, PrintStream err, Path input, Path dir,
      int rows, int cols, String key) throws Exception {
    IdMapping ids = IdMapping.open(dir, rows, cols);
    int rowsBefore = ids.rowCount();
    int colsBefore = ids.colCount();
    int n = 0;
    int[] is = new int[1024];
    int[] js = new int[1024];
    double[] ds = new double[1024];
    int lineNo = 0;
    boolean data = false;
    for (String line : Files.readAllLines(input, StandardCharsets.UTF_8)) {
      lineNo++;
      String t = line.strip();
      if (t.isEmpty() || t.startsWith("#")) {
        continue;
      }
      String where = input + ":" + lineNo;
      String[] f = t.split(",", -1);
      if (f.length < 3 || f[0].isBlank() || f[1].isBlank()) {
        throw new InputException(where + ": expected id_i,id_j,delta[,...]: " + t);
      }
      double d;
      try {
        d = Double.parseDouble(f[2].strip());
      } catch (NumberFormatException e) {
        if (!data) {
          data = true; // the header line, e.g. userId,movieId,rating,timestamp
          continue;
        }
        throw new InputException(where + ": delta '" + f[2].strip() + "' is not a number");
      }
      data = true;
      if (!Double.isFinite(d)) {
        throw new InputException(where + ": delta " + d + " is not finite");
      }
      if (n == is.length) {
        is = java.util.Arrays.copyOf(is, 2 * n);
        js = java.util.Arrays.copyOf(js, 2 * n);
        ds = java.util.Arrays.copyOf(ds, 2 * n);
      }
      is[n] = ids.row(f[0].strip(), where);
      js[n] = ids.col(f[1].strip(), where);
      ds[n] = d;
      n++;
    }
    ids.save();
    err.printf("dplrf produce: %,d row ids (%,d new) and %,d column ids (%,d new) are in %s, kept"
        + " here and never sent (the set of ids present is raw data)%n", ids.rowCount(),
        ids.rowCount() - rowsBefore, ids.colCount(), ids.colCount() - colsBefore, dir);
    String topic = a.string("topic", "dplrf-updates");
    String bootstrap = a.string("bootstrap-servers", "127.0.0.1:9092");
    int batch = a.integer("batch", 64);
    int[] fi = is;
    int[] fj = js;
    double[] fd = ds;
    int count = n;
    long sent;
    long records;
    try (UpdateProducer p = UpdateProducer.create(clientProperties(a, bootstrap, topic), topic,
        batch, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        a.number("rate", Double.POSITIVE_INFINITY), (u, r) -> { })) {
      sent = p.send(sink -> {
        for (int k = 0; k < count; k++) {
          sink.accept(fi[k], fj[k], fd[k]);
        }
      });
      records = p.recordsSent();
    }
    out.printf("sent %,d updates to %s on %s in %,d record%s of at most %,d updates (the service"
        + " applies or dead-letters each record whole)%n", sent, topic, bootstrap, records,
        records == 1 ? "" : "s", batch);
    return 0;
  }

  private static final java.util.regex.Pattern FAR_OUT_OF_RANGE = java.util.regex.Pattern.compile(
      ".*index (\\d+) out of range: valid is 0\\.\\.(\\d+) \\(CSV indices are 0-based\\)$");

  /**
   * A CSV index beyond the shape by more than one is rarely an off-by-one: the file most likely
   * holds ids (MovieLens ids are not contiguous), which {@code --ids} maps.
   */
  private static InputException idsHint(InputException e) {
    java.util.regex.Matcher m = FAR_OUT_OF_RANGE.matcher(String.valueOf(e.getMessage()));
    if (m.matches() && Long.parseLong(m.group(1)) > Long.parseLong(m.group(2)) + 1) {
      return new InputException(e.getMessage() + "; if the file holds ids rather than indices,"
          + " --ids DIR maps them to indices (docs/user-guide.md, \"Your own ids\")", e);
    }
    return e;
  }

  private static void smallest(int[] min, int i, int j) {
    min[0] = Math.min(min[0], i);
    min[1] = Math.min(min[1], j);
  }

  /**
   * {@code --rows} or {@code --cols}: the service's shape, for checking the file before sending
   * ({@code Integer.MAX_VALUE}, no check, when not given).
   */
  private static int dimension(Args a, String name) {
    int v = a.integer(name, Integer.MAX_VALUE);
    if (v < 1) {
      throw new Args.UsageException("produce: --" + name + " must be >= 1 (the service's " + name
          + "). Provided value: " + v);
    }
    return v;
  }

  /** {@code --format rows}: every row of a CSV / Matrix Market file as one row record. */
  private static int rows(Args a, PrintStream out) throws Exception {
    for (String unsupported : new String[] {"rate", "batch", "key", "key-column", "rows"}) {
      if (a.string(unsupported, null) != null) {
        throw new Args.UsageException("produce: --" + unsupported + " is not supported with --format rows");
      }
    }
    RowInput in = RowInput.open(Path.of(a.required("input")));
    int cols;
    if (a.string("cols", null) != null) {
      // The service's d: a row of any other width is refused before anything is sent (the
      // service would dead-letter a row with a value beyond d and let the narrower ones through).
      cols = dimension(a, "cols");
      if (in.declaredCols().isPresent() && in.declaredCols().getAsInt() != cols) {
        throw new InputException(a.required("input") + ": the file declares "
            + in.declaredCols().getAsInt() + " columns, --cols is " + cols);
      }
    } else {
      cols = in.declaredCols().isPresent() ? in.declaredCols().getAsInt() : in.scanCols();
    }
    // Read once before any connection, so that a bad row is refused before anything is sent.
    in.forEachRow(cols, row -> { });
    String topic = a.string("topic", "dplrf-rows");
    String bootstrap = a.string("bootstrap-servers", "127.0.0.1:9092");
    long sent;
    try (RowProducer p = RowProducer.create(clientProperties(a, bootstrap, topic), topic)) {
      in.forEachRow(cols, p::send);
      p.flush();
      sent = p.rowsSent();
    }
    out.printf("sent %,d rows of %d columns to %s on %s%n", sent, cols, topic, bootstrap);
    return 0;
  }

  /**
   * {@code --kafka-config}'s settings (none without it) and {@code bootstrap.servers}, once
   * something listens at one of the bootstrap servers and {@code topic} is there
   * ({@link BrokerProbe}).
   */
  static Map<String, Object> clientProperties(Args a, String bootstrap, String topic)
      throws IOException, InterruptedException {
    BrokerProbe.requireListening(bootstrap, "--bootstrap-servers");
    String file = a.string("kafka-config", null);
    Map<String, Object> props = KafkaClientSettings.withBootstrap(file == null ? Map.of()
        : KafkaClientSettings.load(Path.of(file), "--kafka-config"), bootstrap);
    BrokerProbe.requireTopic(props, topic, bootstrap);
    return props;
  }
}
