package io.dplrf.deploy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.kafka.EmbeddedKafka;
import io.dplrf.ingest.UpdateRecords;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dplrf produce}: keys from a CSV column on a real (embedded) broker, refusals of a bad file
 * before anything is sent, and a missing broker or topic named within seconds.
 */
class ProduceCommandTest {
  @TempDir Path dir;

  /** A port nothing listens on: bound, then released. */
  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  @Test
  void noBroker_failsWithinSeconds_sayingNothingListensThere() throws Exception {
    Path input = Files.writeString(dir.resolve("u.csv"), "0,1,2.5\n");
    int port = closedPort();
    // A Kafka client alone waits max.block.ms = 60 s and then reports a missing topic.
    CliRun r = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> CliRun.of("produce",
        "--input", input.toString(), "--bootstrap-servers", "127.0.0.1:" + port));
    assertEquals(1, r.code(), r.toString());
    assertEquals(1, r.errLines().length, r.toString());
    assertTrue(r.errLines()[0].startsWith("dplrf produce: nothing is listening at 127.0.0.1:"
        + port), r.toString());
    assertTrue(r.errLines()[0].contains("--bootstrap-servers"), r.toString());
  }

  @Test
  void missingTopic_failsWithinSeconds_namingItAndHowToCreateIt() throws Exception {
    Path input = Files.writeString(dir.resolve("u.csv"), "0,1,2.5\n");
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), "127.0.0.1", 0)) {
      // A producer alone waits max.block.ms = 60 s for the topic's metadata.
      CliRun r = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> CliRun.of("produce",
          "--input", input.toString(), "--topic", "not-there",
          "--bootstrap-servers", kafka.bootstrapServers()));
      assertEquals(1, r.code(), r.toString());
      assertEquals(List.of("dplrf produce: topic 'not-there' does not exist on Kafka at "
          + kafka.bootstrapServers() + ": start 'dplrf serve' first (it creates its topics),"
          + " create the topic, or name another with --topic"), List.of(r.errLines()));
    }
  }

  @Test
  void keyColumn_byNameOrIndex_keysEachRecordWithItsLinesUnit() throws Exception {
    // Users interleaved, one of them in column 3 (by name) and the row index in column 0.
    StringBuilder csv = new StringBuilder("i,j,delta,user\n");
    Map<String, List<String>> expected = new TreeMap<>();
    for (int line = 0; line < 40; line++) {
      String user = "user-" + (line / 3 % 4);
      int i = line % 7;
      csv.append(i).append(',').append(line).append(',').append(line * 0.25).append(',')
          .append(user).append('\n');
      expected.computeIfAbsent(user, u -> new ArrayList<>()).add(i + "," + line + "," + line * 0.25);
    }
    Path input = Files.writeString(dir.resolve("keyed.csv"), csv.toString());
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), "127.0.0.1", 0)) {
      kafka.createTopic("by-name", 1);
      kafka.createTopic("by-index", 1);
      CliRun byName = CliRun.of("produce", "--input", input.toString(), "--topic", "by-name",
          "--bootstrap-servers", kafka.bootstrapServers(), "--key-column", "user", "--batch", "2");
      assertEquals(0, byName.code(), byName.toString());
      List<ConsumerRecord<byte[], byte[]>> records = consume(kafka.bootstrapServers(), "by-name", 40);
      assertEquals(expected, byKey(records));
      // A change of key starts a record: more records than 40 / 2, each said.
      assertTrue(byName.out().contains("sent 40 updates to by-name on " + kafka.bootstrapServers()
          + " in " + records.size() + " records of at most 2 updates (the service applies or"
          + " dead-letters each record whole)"), byName.out());

      CliRun byIndex = CliRun.of("produce", "--input", input.toString(), "--topic", "by-index",
          "--bootstrap-servers", kafka.bootstrapServers(), "--key-column", "0");
      assertEquals(0, byIndex.code(), byIndex.toString());
      Map<String, List<String>> rows = byKey(consume(kafka.bootstrapServers(), "by-index", 40));
      assertEquals(7, rows.size(), "one key per row index: " + rows.keySet());
      rows.forEach((k, updates) -> updates.forEach(u ->
          assertTrue(u.startsWith(k + ","), "update " + u + " under key " + k)));
    }
  }

  /**
   * {@code --ids DIR}: MovieLens-style ids (not contiguous, a header, extra columns) become
   * 0-based indices in order of first appearance; only indices are sent; the map stays in DIR,
   * and a second file extends it with the same indices for the same ids. More distinct ids than
   * --rows is refused before anything is sent.
   */
  @Test
  void ids_mapsTheUsersOwnIds_keepsTheMapWithTheProducer_andSendsIndicesOnly() throws Exception {
    Path first = Files.writeString(dir.resolve("ratings.csv"),
        "userId,movieId,rating,timestamp\n7,46970,4.0,964982703\n7,1,5.0,964981247\n"
            + "610,46970,3.5,1493848402\n");
    Path second = Files.writeString(dir.resolve("more.csv"), "610,2,1.0\n7,1,-5.0\n");
    Path ids = dir.resolve("ids");
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), "127.0.0.1", 0)) {
      kafka.createTopic("mapped", 1);
      CliRun r = CliRun.of("produce", "--input", first.toString(), "--ids", ids.toString(),
          "--rows", "610", "--cols", "9742", "--topic", "mapped", "--bootstrap-servers",
          kafka.bootstrapServers());
      assertEquals(0, r.code(), r.toString());
      assertTrue(r.err().contains("2 row ids (2 new) and 2 column ids (2 new) are in " + ids
          + ", kept here and never sent (the set of ids present is raw data)"), r.toString());
      assertEquals("7\n610\n", Files.readString(ids.resolve("rows.ids")));
      assertEquals("46970\n1\n", Files.readString(ids.resolve("cols.ids")));
      CliRun again = CliRun.of("produce", "--input", second.toString(), "--ids", ids.toString(),
          "--topic", "mapped", "--bootstrap-servers", kafka.bootstrapServers());
      assertEquals(0, again.code(), again.toString());
      assertEquals("46970\n1\n2\n", Files.readString(ids.resolve("cols.ids")));
      List<String> sent = new ArrayList<>();
      for (ConsumerRecord<byte[], byte[]> rec : consume(kafka.bootstrapServers(), "mapped", 5)) {
        UpdateRecords.forEach(rec.value(), (i, j, d) -> sent.add(i + "," + j + "," + d));
      }
      assertEquals(List.of("0,0,4.0", "0,1,5.0", "1,0,3.5", "1,2,1.0", "0,1,-5.0"), sent);
    }
    Path many = Files.writeString(dir.resolve("many.csv"), "a,x,1\nb,x,1\nc,x,1\n");
    CliRun over = CliRun.of("produce", "--input", many.toString(), "--ids",
        dir.resolve("ids2").toString(), "--rows", "2", "--bootstrap-servers",
        "127.0.0.1:" + closedPort());
    assertEquals(1, over.code(), over.toString());
    assertTrue(over.err().contains("many.csv:3: row id 'c' is distinct row id number 3, but the"
        + " service has 2 rows"), over.toString());
    assertTrue(!Files.exists(dir.resolve("ids2").resolve("rows.ids")), "nothing saved");
  }

  /** The updates of each key, in order; every record's updates share its key. */
  private static Map<String, List<String>> byKey(List<ConsumerRecord<byte[], byte[]>> records)
      throws Exception {
    Map<String, List<String>> m = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      List<String> list = m.computeIfAbsent(new String(r.key(), StandardCharsets.UTF_8),
          k -> new ArrayList<>());
      UpdateRecords.forEach(r.value(), (i, j, d) -> list.add(i + "," + j + "," + d));
    }
    return m;
  }

  /** Every record of the topic's one partition, once {@code updates} updates have arrived. */
  private static List<ConsumerRecord<byte[], byte[]>> consume(String bootstrap, String topic,
      int updates) throws Exception {
    Map<String, Object> config = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.GROUP_ID_CONFIG, "test-" + UUID.randomUUID(),
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
    int seen = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      TopicPartition p = new TopicPartition(topic, 0);
      consumer.assign(List.of(p));
      consumer.seekToBeginning(List.of(p));
      long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (seen < updates && System.nanoTime() < end) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          got.add(r);
          seen += UpdateRecords.count(r.value());
        }
      }
    }
    assertEquals(updates, seen, "updates in " + topic);
    return got;
  }

  @Test
  void keyColumnMistakes_areRefusedWithTheirLine_beforeAnyConnection() throws Exception {
    String closed = "127.0.0.1:" + closedPort();
    Path header = Files.writeString(dir.resolve("h.csv"), "i,j,delta,user\n0,0,1,a\n1,1,1,\n");
    Path noHeader = Files.writeString(dir.resolve("n.csv"), "0,0,1,a\n1,1,1\n");
    Path mtx = Files.writeString(dir.resolve("m.mtx"),
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n");
    String[][] cases = {
        {header.toString(), "--key-column", "usr", "h.csv:1: --key-column usr: no such column"
            + " in the header (columns: i, j, delta, user)"},
        {header.toString(), "--key-column", "user", "h.csv:3: empty key in column user (3)"},
        {header.toString(), "--key-column", "7", "h.csv:1: --key-column 7: the header has 4"
            + " columns"},
        {noHeader.toString(), "--key-column", "user", "n.csv:1: --key-column user names a"
            + " column, but the file has no header line"},
        {noHeader.toString(), "--key-column", "3", "n.csv:2: no key column 3: the line has 3"
            + " fields"},
        {mtx.toString(), "--key-column", "0", "m.mtx:1: --key-column needs a CSV file"},
    };
    for (String[] c : cases) {
      CliRun r = CliRun.of("produce", "--input", c[0], c[1], c[2], "--bootstrap-servers", closed);
      assertEquals(1, r.code(), r.toString());
      assertEquals(1, r.errLines().length, r.toString());
      assertTrue(r.errLines()[0].contains(c[3]), "expected '" + c[3] + "' in\n" + r);
    }
    CliRun both = CliRun.of("produce", "--input", header.toString(), "--key", "k",
        "--key-column", "user", "--bootstrap-servers", closed);
    assertEquals(2, both.code(), both.toString());
    assertTrue(both.err().contains("not both"), both.toString());
    CliRun rows = CliRun.of("produce", "--format", "rows", "--input", header.toString(),
        "--key-column", "user", "--bootstrap-servers", closed);
    assertEquals(2, rows.code(), rows.toString());
    assertTrue(rows.err().contains("--key-column is not supported with --format rows"),
        rows.toString());
  }

  @Test
  void rowsAndCols_refuseAnIndexOutsideThem_withItsLine_beforeAnyConnection() throws Exception {
    String closed = "127.0.0.1:" + closedPort();
    Path csv = Files.writeString(dir.resolve("u.csv"), "0,0,1\n3,63,1\n# comment\n4,64,1\n");
    Path keyed = Files.writeString(dir.resolve("k.csv"), "i,j,delta,user\n0,0,1,a\n10,1,1,b\n");
    Path mtx = Files.writeString(dir.resolve("m.mtx"),
        "%%MatrixMarket matrix coordinate real general\n20 20 2\n1 1 1\n12 3 1\n");
    String[][] cases = {
        {csv.toString(), "10", "64", "u.csv:4: column index 64 out of range: valid is 0..63"
            + " (CSV indices are 0-based)"},
        {keyed.toString(), "10", "64", "k.csv:3: row index 10 out of range: valid is 0..9"
            + " (CSV indices are 0-based)"},
        {mtx.toString(), "10", "64", "m.mtx:4: row index 12 out of range: valid is 1..10"
            + " (Matrix Market indices are 1-based)"},
    };
    for (String[] c : cases) {
      List<String> args = new ArrayList<>(List.of("produce", "--input", c[0], "--rows", c[1],
          "--cols", c[2], "--bootstrap-servers", closed));
      if (c[0].endsWith("k.csv")) {
        args.addAll(List.of("--key-column", "user"));
      }
      CliRun r = CliRun.of(args.toArray(String[]::new));
      assertEquals(1, r.code(), r.toString());
      assertEquals(List.of("dplrf produce: " + c[0] + ":" + c[3].substring(c[3].indexOf(':') + 1)),
          List.of(r.errLines()), r.toString());
    }
    // An index far beyond the shape is most likely an id: the refusal says how to map ids.
    Path ratings = Files.writeString(dir.resolve("r.csv"), "1,1,4.0\n1,46970,5.0\n");
    CliRun ids = CliRun.of("produce", "--input", ratings.toString(), "--rows", "610", "--cols",
        "9742", "--bootstrap-servers", closed);
    assertEquals(1, ids.code(), ids.toString());
    assertEquals(List.of("dplrf produce: " + ratings + ":2: column index 46970 out of range:"
        + " valid is 0..9741 (CSV indices are 0-based); if the file holds ids rather than"
        + " indices, --ids DIR maps them to indices (docs/user-guide.md, \"Your own ids\")"),
        List.of(ids.errLines()), ids.toString());
    // The same files within a larger shape pass the check and reach the (absent) broker.
    CliRun wide = CliRun.of("produce", "--input", csv.toString(), "--rows", "5", "--cols", "65",
        "--bootstrap-servers", closed);
    assertEquals(1, wide.code(), wide.toString());
    assertTrue(wide.errLines()[0].startsWith("dplrf produce: nothing is listening"), wide.toString());
    CliRun zero = CliRun.of("produce", "--input", csv.toString(), "--rows", "0",
        "--bootstrap-servers", closed);
    assertEquals(2, zero.code(), zero.toString());
    assertTrue(zero.err().contains("--rows must be >= 1"), zero.toString());
  }

  @Test
  void csvWhoseSmallestIndicesAreOne_getsAOneLineWarningThatIndicesAre0Based() throws Exception {
    String closed = "127.0.0.1:" + closedPort();
    Path oneBased = Files.writeString(dir.resolve("ml.csv"), "1,1,5\n1,7,3\n943,1682,4\n");
    CliRun r = CliRun.of("produce", "--input", oneBased.toString(), "--bootstrap-servers", closed);
    assertEquals(1, r.code(), r.toString());
    assertEquals(2, r.errLines().length, r.toString());
    assertTrue(r.errLines()[0].startsWith("dplrf produce: warning: the smallest row and column"
        + " index in " + oneBased + " are both 1, but CSV indices are 0-based"), r.toString());
    assertTrue(r.errLines()[1].startsWith("dplrf produce: nothing is listening"), r.toString());

    // Row 0 present, or Matrix Market (1-based by its format): no warning.
    Path zeroRow = Files.writeString(dir.resolve("z.csv"), "0,1,5\n1,7,3\n");
    Path mtx = Files.writeString(dir.resolve("m.mtx"),
        "%%MatrixMarket matrix coordinate real general\n3 3 1\n2 2 1\n");
    for (Path p : List.of(zeroRow, mtx)) {
      CliRun quiet = CliRun.of("produce", "--input", p.toString(), "--bootstrap-servers", closed);
      assertEquals(1, quiet.errLines().length, quiet.toString());
      assertTrue(quiet.errLines()[0].startsWith("dplrf produce: nothing is listening"),
          quiet.toString());
    }
  }

  @Test
  void rowsFormatWithCols_refusesARowOfAnotherWidth_beforeAnyConnection() throws Exception {
    String closed = "127.0.0.1:" + closedPort();
    StringBuilder csv = new StringBuilder();
    for (int r = 0; r < 3; r++) {
      for (int j = 0; j < 65; j++) {
        csv.append(j == 0 ? "" : ",").append(r == 2 && j == 64 ? 0.5 : 0);
      }
      csv.append('\n');
    }
    Path wide = Files.writeString(dir.resolve("wide.csv"), csv.toString());
    CliRun r = CliRun.of("produce", "--format", "rows", "--input", wide.toString(), "--cols", "64",
        "--bootstrap-servers", closed);
    assertEquals(1, r.code(), r.toString());
    assertEquals(List.of("dplrf produce: " + wide + ":1: expected 64 values per row, found 65"),
        List.of(r.errLines()), r.toString());

    Path mtx = Files.writeString(dir.resolve("wide.mtx"),
        "%%MatrixMarket matrix coordinate real general\n3 65 1\n1 1 1\n");
    CliRun m = CliRun.of("produce", "--format", "rows", "--input", mtx.toString(), "--cols", "64",
        "--bootstrap-servers", closed);
    assertEquals(1, m.code(), m.toString());
    assertEquals(List.of("dplrf produce: " + mtx + ": the file declares 65 columns, --cols is 64"),
        List.of(m.errLines()), m.toString());

    // The right width passes the check and reaches the (absent) broker; --rows has no place here.
    CliRun ok = CliRun.of("produce", "--format", "rows", "--input", wide.toString(), "--cols",
        "65", "--bootstrap-servers", closed);
    assertTrue(ok.errLines()[0].startsWith("dplrf produce: nothing is listening"), ok.toString());
    CliRun rows = CliRun.of("produce", "--format", "rows", "--input", wide.toString(), "--rows",
        "3", "--bootstrap-servers", closed);
    assertEquals(2, rows.code(), rows.toString());
    assertTrue(rows.err().contains("--rows is not supported with --format rows"), rows.toString());
  }
}
