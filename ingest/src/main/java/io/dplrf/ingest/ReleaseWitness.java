package io.dplrf.ingest;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The broker's record of how far a stream's durable snapshots have got: the one witness of a
 * continual release's progress that lives outside the state directory, so that an older backup
 * put back whole (its snapshot, state files and released-epoch guard agreeing with each other) is
 * refused instead of closing released epochs again with their noise (docs/privacy/recovery.md §6).
 *
 * <p>Kafka's own mechanisms hold it: the committed offsets of a consumer group that belongs to the
 * stream alone ({@link #group}), with the snapshot's next offsets and, as the offsets' metadata,
 * {@code dplrf epoch=<e>}, committed in a transaction of a producer whose {@code transactional.id}
 * is the group's name. The loop records epoch e after the snapshot of e is durable and before
 * anything of e is released ({@link IngestLoop}), and a start refuses a snapshot of an epoch below
 * the record. The transactional id fences: a process that starts on a copy of the stream's state
 * directory initialises the id, and the older process's next record fails ({@link
 * FencedException}) before it releases anything more, so two copies never both release an epoch.
 * The group has no members (the loop {@code assign}s its partitions), so its offsets
 * never steer a consumer; standard tools ({@code kafka-consumer-groups.sh --describe}) show the
 * stream's progress and lag. An empty group's offsets expire after the broker's {@code
 * offsets.retention.minutes} (7 days by default) without a commit; every epoch close and every
 * start record the epoch again.
 */
public interface ReleaseWitness extends AutoCloseable {
  /** No record: modes without continual release, and tests of the loop alone. */
  ReleaseWitness NONE = new ReleaseWitness() {
    @Override
    public int witnessed(String stream) {
      return -1;
    }

    @Override
    public void record(String stream, int epoch, Map<Integer, Long> nextOffsets) {}

    @Override
    public void close() {}
  };

  /**
   * The epoch the broker records for {@code stream}, or −1 if none.
   *
   * @throws IOException if the broker cannot be asked
   */
  int witnessed(String stream) throws IOException;

  /**
   * Records durably on the broker that the snapshot of {@code epoch} of {@code stream}, at
   * {@code nextOffsets} (partition → next offset), is durable.
   *
   * @throws IOException if the broker does not take it (the caller retries)
   * @throws FencedException if another process has taken the stream over (never retried)
   */
  void record(String stream, int epoch, Map<Integer, Long> nextOffsets) throws IOException;

  /** Another process records for the stream now: this one must release nothing more. */
  final class FencedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    FencedException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  @Override
  void close();

  /**
   * The consumer group that holds the record of {@code stream} (its instance label): {@code
   * dplrf-} and the label with every character outside {@code [A-Za-z0-9._-]} replaced by {@code
   * -}.
   */
  static String group(String stream) {
    return "dplrf-" + stream.replaceAll("[^A-Za-z0-9._-]", "-");
  }

  /**
   * The record on the broker of {@code clientProperties}, for the stream's partitions of {@code
   * topic}, through Kafka's {@link Admin} client (thread-safe: the loop records from its closer
   * thread).
   */
  static ReleaseWitness kafka(Map<String, Object> clientProperties, String topic) {
    Map<String, Object> c = new HashMap<>();
    for (Map.Entry<String, Object> e : clientProperties.entrySet()) {
      if (AdminClientConfig.configNames().contains(e.getKey())) {
        c.put(e.getKey(), e.getValue());
      }
    }
    c.put(AdminClientConfig.CLIENT_ID_CONFIG, IngestClients.clientId(clientProperties, "witness"));
    Map<String, Object> p = new HashMap<>();
    for (Map.Entry<String, Object> e : clientProperties.entrySet()) {
      if (ProducerConfig.configNames().contains(e.getKey())) {
        p.put(e.getKey(), e.getValue());
      }
    }
    p.put(ProducerConfig.CLIENT_ID_CONFIG, IngestClients.clientId(clientProperties, "record"));
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return new Kafka(Admin.create(c), p, topic, Duration.ofSeconds(30));
  }

  /** {@link #kafka}. */
  final class Kafka implements ReleaseWitness {
    private static final Pattern METADATA = Pattern.compile("dplrf epoch=(\\d{1,10})");
    private static final String ACL_HINT = " (with Kafka's authorizer, dplrf's principal needs"
        + " READ on the groups and WRITE on the transactional ids named dplrf-*, prefixed ACLs:"
        + " docs/operations.md §1)";
    private final Admin admin;
    /** The transactional producer's settings, less its {@code transactional.id}. */
    private final Map<String, Object> producerConfig;
    private final String topic;
    private final Duration timeout;
    /** The transactional producer of {@link #producerStream}, once initialised; or null. */
    private Producer<byte[], byte[]> producer;
    private String producerStream;

    Kafka(Admin admin, Map<String, Object> producerConfig, String topic, Duration timeout) {
      this.admin = admin;
      this.producerConfig = Map.copyOf(producerConfig);
      this.topic = topic;
      this.timeout = timeout;
    }

    @Override
    public int witnessed(String stream) throws IOException {
      Map<TopicPartition, OffsetAndMetadata> committed;
      try {
        committed = admin.listConsumerGroupOffsets(group(stream)).partitionsToOffsetAndMetadata()
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof GroupIdNotFoundException) {
          return -1;
        }
        throw new IOException("cannot read consumer group " + group(stream) + ": " + e.getCause()
            + ACL_HINT, e.getCause());
      } catch (TimeoutException e) {
        throw new IOException("the broker did not answer for consumer group " + group(stream)
            + " within " + timeout.toSeconds() + " s", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
      int epoch = -1;
      for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
        OffsetAndMetadata o = e.getValue();
        Matcher m = o == null ? null : METADATA.matcher(o.metadata());
        if (m != null && m.matches() && e.getKey().topic().equals(topic)) {
          epoch = Math.max(epoch, Integer.parseInt(m.group(1)));
        }
      }
      return epoch;
    }

    @Override
    public synchronized void record(String stream, int epoch, Map<Integer, Long> nextOffsets)
        throws IOException {
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
      String metadata = "dplrf epoch=" + epoch;
      nextOffsets.forEach((p, o) ->
          offsets.put(new TopicPartition(topic, p), new OffsetAndMetadata(o, metadata)));
      if (offsets.isEmpty()) { // no record read yet: the epoch is what matters
        offsets.put(new TopicPartition(topic, 0), new OffsetAndMetadata(0, metadata));
      }
      Producer<byte[], byte[]> p = producer(stream);
      try {
        p.beginTransaction();
        // The group has no member, so it has no generation: the metadata of the group's id alone,
        // as a producer that is not a consumer commits (marked for removal in Kafka 4, with no
        // replacement for member-less groups yet).
        p.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata(group(stream)));
        p.commitTransaction();
      } catch (ProducerFencedException | InvalidProducerEpochException e) {
        dropProducer();
        throw new FencedException("another process has taken over stream " + stream
            + " (transactional id " + group(stream) + "): a copy of this state directory runs"
            + " elsewhere; this one releases nothing more (docs/privacy/recovery.md §6)", e);
      } catch (KafkaException e) {
        // Not fenced: the transaction is aborted where it can be, else the producer is made anew.
        try {
          p.abortTransaction();
        } catch (KafkaException again) {
          dropProducer();
        }
        throw new IOException("cannot commit to consumer group " + group(stream) + ": " + e
            + ACL_HINT, e);
      }
    }

    /**
     * The transactional producer of {@code stream}: initialising its id fences every other
     * process that recorded for the stream before.
     */
    private Producer<byte[], byte[]> producer(String stream) throws IOException {
      if (producer != null && stream.equals(producerStream)) {
        return producer;
      }
      dropProducer();
      Map<String, Object> c = new HashMap<>(producerConfig);
      c.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, group(stream));
      KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(c);
      try {
        p.initTransactions();
      } catch (KafkaException e) {
        p.close(Duration.ZERO);
        throw new IOException("cannot initialise transactional id " + group(stream) + ": " + e
            + ACL_HINT, e);
      }
      producer = p;
      producerStream = stream;
      return p;
    }

    private void dropProducer() {
      if (producer != null) {
        producer.close(Duration.ZERO);
        producer = null;
        producerStream = null;
      }
    }

    @Override
    public synchronized void close() {
      dropProducer();
      admin.close(Duration.ofSeconds(5));
    }
  }
}
