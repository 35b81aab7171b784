package io.dplrf.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Where a window's core-seconds went, beyond the JVM's own threads ({@link ThreadCpu}): this
 * process's CPU (which counts the garbage collector and the JIT, whose threads are not Java
 * threads), and the host's idle, I/O-wait and steal time from {@code /proc/stat} (steal: time the
 * hypervisor gave this machine's cores to another guest, which a shared host's benchmarks cannot
 * otherwise tell from a slower run). Linux only for the host's part; elsewhere those are NaN.
 */
final class HostCpu {
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private static final Path PROC_STAT = Path.of("/proc/stat");
  /**
   * /proc/stat counts in USER_HZ ticks, which Linux fixes at 100 per second for user space on
   * every architecture it exports this file on (proc(5)).
   */
  private static final double TICKS_PER_SECOND = 100;

  /** A sample: the process's CPU nanoseconds, the host's cpu line (null if unreadable). */
  record Sample(long processNanos, long[] hostTicks) {}

  /**
   * Seconds spent between two samples.
   *
   * @param process this process's CPU, all threads
   * @param hostIdle all cores idle, with nothing waiting for I/O
   * @param hostIowait all cores idle while I/O was outstanding
   * @param hostSteal all cores given to other guests by the hypervisor
   */
  record Usage(double process, double hostIdle, double hostIowait, double hostSteal) {
    static final Usage NONE = new Usage(Double.NaN, Double.NaN, Double.NaN, Double.NaN);
  }

  private HostCpu() {}

  static Sample sample() {
    return new Sample(OS.getProcessCpuTime(), hostTicks());
  }

  static Usage since(Sample before) {
    return between(before, sample());
  }

  /**
   * Seconds between two samples: NaN for the process where either sample lacks its CPU time
   * (negative: the platform cannot measure it), and for the host where either lacks its ticks.
   */
  static Usage between(Sample before, Sample now) {
    double process = before.processNanos() < 0 || now.processNanos() < 0 ? Double.NaN
        : (now.processNanos() - before.processNanos()) / 1e9;
    if (before.hostTicks() == null || now.hostTicks() == null) {
      return new Usage(process, Double.NaN, Double.NaN, Double.NaN);
    }
    return new Usage(process, ticks(before, now, 3), ticks(before, now, 4), ticks(before, now, 7));
  }

  private static double ticks(Sample before, Sample now, int field) {
    return (now.hostTicks()[field] - before.hostTicks()[field]) / TICKS_PER_SECOND;
  }

  /**
   * The aggregate "cpu" line's first eight fields: user, nice, system, idle, iowait, irq,
   * softirq, steal; null where the file is missing or shorter (not Linux, or a kernel before
   * 2.6.11).
   */
  static long[] parseCpuLine(String line) {
    String[] f = line.trim().split("\\s+");
    if (f.length < 9 || !f[0].equals("cpu")) {
      return null;
    }
    long[] t = new long[8];
    for (int i = 0; i < 8; i++) {
      t[i] = Long.parseLong(f[i + 1]);
    }
    return t;
  }

  private static long[] hostTicks() {
    try {
      List<String> lines = Files.readAllLines(PROC_STAT);
      return lines.isEmpty() ? null : parseCpuLine(lines.get(0));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
