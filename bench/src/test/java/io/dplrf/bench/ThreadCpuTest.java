package io.dplrf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ThreadCpuTest {
  /** The benchmark's CPU table groups threads by name; Kafka's consumer thread counts as Kafka. */
  @Test
  void group_namesTheBenchmarksThreadGroups() {
    assertEquals("ingest thread", ThreadCpu.group("main"));
    assertEquals("banded flush, 2nd thread", ThreadCpu.group("ForkJoinPool.commonPool-worker-1"));
    assertEquals("Kafka broker and clients", ThreadCpu.group("consumer_background_thread"));
    assertEquals("Kafka broker and clients",
        ThreadCpu.group("data-plane-kafka-request-handler-0"));
    assertEquals("epoch closer", ThreadCpu.group("dplrf-direct-writer"));
    assertEquals("release", ThreadCpu.group("dplrf-release-noise-3"));
    assertEquals("other", ThreadCpu.group("Reference Handler"));
  }
}
