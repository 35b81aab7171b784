package io.dplrf.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class HostCpuTest {
  private static final String CPU_LINE =
      "cpu  8095547 15011 911809 4943052 59583 0 64740 567341 0 0";

  @Test
  void parsesTheAggregateCpuLine() {
    assertArrayEquals(new long[] {8095547, 15011, 911809, 4943052, 59583, 0, 64740, 567341},
        HostCpu.parseCpuLine(CPU_LINE));
  }

  @Test
  void refusesAPerCoreOrShortLine() {
    assertNull(HostCpu.parseCpuLine("cpu0 1 2 3 4 5 6 7 8 0 0"));
    assertNull(HostCpu.parseCpuLine("cpu  1 2 3 4 5 6 7"));
  }

  /** Idle, iowait and steal are fields 4, 5 and 8 of the line, in ticks of 1/100 s. */
  @Test
  void between_takesProcessNanosAndIdleIowaitStealTicksAsSeconds() {
    HostCpu.Sample before = new HostCpu.Sample(1_000_000_000L, HostCpu.parseCpuLine(CPU_LINE));
    HostCpu.Sample now = new HostCpu.Sample(1_250_000_000L, HostCpu.parseCpuLine(
        "cpu  8095647 15011 911859 4943202 59590 0 64740 567344 0 0"));
    assertEquals(new HostCpu.Usage(0.25, 1.5, 0.07, 0.03), HostCpu.between(before, now));
  }

  @Test
  void between_unmeasurableProcessOrUnreadableHost_isNaNForThatPartOnly() {
    long[] ticks = HostCpu.parseCpuLine(CPU_LINE);
    HostCpu.Usage noHost = HostCpu.between(new HostCpu.Sample(0, ticks),
        new HostCpu.Sample(500_000_000L, null));
    assertEquals(new HostCpu.Usage(0.5, Double.NaN, Double.NaN, Double.NaN), noHost);
    HostCpu.Usage noProcess = HostCpu.between(new HostCpu.Sample(-1, ticks),
        new HostCpu.Sample(500_000_000L, ticks));
    assertEquals(new HostCpu.Usage(Double.NaN, 0, 0, 0), noProcess);
  }

  /**
   * Live: the loop runs until this thread has used 0.1 CPU-s (however long that takes on a busy
   * host), so the process used at least that. Linux reports the process's CPU time in clock
   * ticks of 10 ms, user and system time each truncated (up to 2 ticks short at each sample),
   * hence the slack of 0.02 s either way; no process uses more than wall × cores.
   */
  @Test
  void since_countsAtLeastTheCpuThisThreadUsed_andNoMoreThanWallTimesCores() throws IOException {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isCurrentThreadCpuTimeSupported(), "needs thread CPU time");
    long t0 = System.nanoTime();
    HostCpu.Sample before = HostCpu.sample();
    assumeTrue(before.processNanos() >= 0, "needs process CPU time");
    long threadEnd = threads.getCurrentThreadCpuTime() + 100_000_000L;
    long x = 0;
    while (threads.getCurrentThreadCpuTime() < threadEnd) {
      x += Long.numberOfTrailingZeros(x + System.nanoTime());
    }
    HostCpu.Usage u = HostCpu.since(before);
    double wall = (System.nanoTime() - t0) / 1e9;
    String what = "process CPU " + u.process() + " s in " + wall + " s (" + x + ")";
    assertTrue(u.process() >= 0.1 - 0.02, what);
    assertTrue(u.process() <= wall * cores() + 0.02, what + ", " + cores() + " cores");
  }

  /** The host's online cores (per-core lines of /proc/stat), else what the JVM may use. */
  private static int cores() throws IOException {
    Path stat = Path.of("/proc/stat");
    int jvm = Runtime.getRuntime().availableProcessors();
    if (!Files.isReadable(stat)) {
      return jvm;
    }
    long perCore = Files.readAllLines(stat).stream().filter(l -> l.matches("cpu[0-9]+ .*"))
        .count();
    return (int) Math.max(jvm, perCore);
  }
}
