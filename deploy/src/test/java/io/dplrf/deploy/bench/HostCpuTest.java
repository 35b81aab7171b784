package io.dplrf.deploy.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HostCpuTest {
  @Test
  void parsesTheAggregateCpuLine() {
    assertArrayEquals(new long[] {8095547, 15011, 911809, 4943052, 59583, 0, 64740, 567341},
        HostCpu.parseCpuLine("cpu  8095547 15011 911809 4943052 59583 0 64740 567341 0 0"));
  }

  @Test
  void refusesAPerCoreOrShortLine() {
    assertNull(HostCpu.parseCpuLine("cpu0 1 2 3 4 5 6 7 8 0 0"));
    assertNull(HostCpu.parseCpuLine("cpu  1 2 3 4 5 6 7"));
  }

  @Test
  void aWindowSeesItsOwnCpu() {
    HostCpu.Sample before = HostCpu.sample();
    long x = 0;
    long end = System.nanoTime() + 200_000_000L;
    while (System.nanoTime() < end) {
      x += Long.numberOfTrailingZeros(x + System.nanoTime());
    }
    HostCpu.Usage u = HostCpu.since(before);
    // 0.2 s of busy loop on this thread: the process's CPU is at least most of it (the clock
    // and the CPU counter have coarse ticks on some kernels), whatever else the host does.
    assertTrue(u.process() >= 0.15, "process CPU " + u.process() + " (" + x + ")");
  }
}
