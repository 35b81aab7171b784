package io.dplrf.deploy.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * A Kafka client properties file ({@code kafka-config}; the format of Kafka's own {@code
 * --command-config}): security ({@code security.protocol}, {@code sasl.*}, {@code ssl.*}) and
 * tuning ({@code max.partition.fetch.bytes}, …) for the Kafka clients of {@code serve}, {@code
 * demo} and {@code produce} (the benchmarks use their embedded broker's defaults). Settings that
 * dplrf sets itself, because exactly-once ingest or the record format depends on them, are refused
 * rather than silently overridden, and so is {@code bootstrap.servers} (one source: the {@code
 * bootstrap-servers} setting). Values are never printed: the file may hold credentials.
 */
public final class KafkaClientSettings {
  /** Keys refused, each with the reason shown. */
  private static final Map<String, String> RESERVED = Map.ofEntries(
      Map.entry("bootstrap.servers", "give it as bootstrap-servers"),
      Map.entry("group.id", "dplrf assigns partitions itself, without a consumer group"),
      Map.entry("enable.auto.commit", "offsets are saved with the sketch state, never committed"),
      Map.entry("auto.offset.reset", "dplrf seeks to its saved offsets and never resets silently"),
      Map.entry("isolation.level", "dplrf reads committed records only"),
      Map.entry("key.deserializer", "records are raw bytes"),
      Map.entry("value.deserializer", "records are raw bytes"),
      Map.entry("key.serializer", "records are raw bytes"),
      Map.entry("value.serializer", "records are raw bytes"),
      Map.entry("acks", "dplrf's producers always use acks=all"),
      Map.entry("enable.idempotence", "dplrf's producers are always idempotent"),
      Map.entry("transactional.id", "dplrf's producers are not transactional"));

  private KafkaClientSettings() {}

  /** A new client property map: {@code settings} (from {@link #load}) and the bootstrap servers. */
  public static Map<String, Object> withBootstrap(Map<String, Object> settings, String bootstrap) {
    Map<String, Object> props = new HashMap<>(settings);
    props.put("bootstrap.servers", bootstrap);
    return props;
  }

  /** The keys refused in the file. */
  static Set<String> reserved() {
    return RESERVED.keySet();
  }

  /**
   * Reads {@code file} ({@link Properties} syntax, UTF-8).
   *
   * @param setting the setting or flag that named the file, for messages
   * @throws ConfigException if it cannot be read or sets a reserved key
   */
  public static Map<String, Object> load(Path file, String setting) {
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(in);
    } catch (IOException | IllegalArgumentException e) {
      throw new ConfigException(setting + ": cannot read Kafka client settings from " + file + ": "
          + (e instanceof NoSuchFileException ? "no such file" : e.getMessage()));
    }
    Map<String, Object> out = new TreeMap<>();
    for (String k : p.stringPropertyNames()) {
      String why = RESERVED.get(k);
      if (why != null) {
        throw new ConfigException(setting + ": " + file + " sets " + k + ", which dplrf sets itself ("
            + why + "): remove it");
      }
      out.put(k, p.getProperty(k));
    }
    return out;
  }
}
