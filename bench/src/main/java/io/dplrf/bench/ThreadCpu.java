package io.dplrf.bench;

import io.dplrf.sketch.files.DirectFileOutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU seconds by group of threads between two samples ({@link ThreadMXBean}): where the CPU of an
 * ingest run went — the ingest thread, the epoch closer, the release, the banded flush's second
 * thread, ojAlgo's workers, the Kafka broker and clients. Threads that end between the samples
 * are not counted (none of the groups above does during a run).
 */
final class ThreadCpu {
  private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

  private ThreadCpu() {}

  /** Thread id → CPU nanoseconds of every live thread (empty if the JVM cannot measure it). */
  static Map<Long, Long> sample() {
    Map<Long, Long> cpu = new HashMap<>();
    if (!MX.isThreadCpuTimeSupported()) {
      return cpu;
    }
    for (long id : MX.getAllThreadIds()) {
      long ns = MX.getThreadCpuTime(id);
      if (ns >= 0) {
        cpu.put(id, ns);
      }
    }
    return cpu;
  }

  /** CPU seconds per group since {@code before}, for the threads alive now. */
  static Map<String, Double> since(Map<Long, Long> before) {
    Map<String, Double> byGroup = new TreeMap<>();
    for (Map.Entry<Long, Long> e : sample().entrySet()) {
      ThreadInfo info = MX.getThreadInfo(e.getKey());
      if (info == null) {
        continue;
      }
      double s = (e.getValue() - before.getOrDefault(e.getKey(), 0L)) / 1e9;
      byGroup.merge(group(info.getThreadName()), s, Double::sum);
    }
    return byGroup;
  }

  static String group(String thread) {
    if (thread.equals("main")) {
      return "ingest thread";
    }
    if (thread.equals("dplrf-epoch-close")
        || thread.equals(DirectFileOutputStream.WRITER_THREAD)) {
      return "epoch closer"; // and the node files' direct writes it hands to the writer thread
    }
    if (thread.equals(IngestBench.RELEASE_THREAD) || thread.startsWith("dplrf-release-noise-")) {
      return "release"; // and the noise workers (NoiseWorkers) that draw its noise beside it
    }
    if (thread.startsWith("ojAlgo")) {
      return "release (ojAlgo workers)";
    }
    if (thread.startsWith("ForkJoinPool.commonPool")) {
      return "banded flush, 2nd thread";
    }
    String t = thread.toLowerCase(java.util.Locale.ROOT);
    if (t.contains("kafka") || t.contains("raft") || t.contains("data-plane")
        || t.contains("broker") || t.contains("controller") || t.contains("log")
        || t.startsWith("consumer_background")) { // the new consumer's network thread
      return "Kafka broker and clients";
    }
    return "other";
  }
}
