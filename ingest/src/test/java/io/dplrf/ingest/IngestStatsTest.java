package io.dplrf.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IngestStatsTest {

  @Test
  void checksum_isIndependentOfApplicationOrder() {
    List<double[]> updates = new ArrayList<>();
    SplittableRandom rnd = new SplittableRandom(7);
    for (int k = 0; k < 1000; k++) {
      updates.add(new double[] {rnd.nextInt(50), rnd.nextInt(50), rnd.nextDouble(-1, 1)});
    }
    IngestStats a = new IngestStats();
    updates.forEach(u -> a.applied((int) u[0], (int) u[1], u[2], false));
    Collections.shuffle(updates, new java.util.Random(3));
    IngestStats b = new IngestStats();
    updates.forEach(u -> b.applied((int) u[0], (int) u[1], u[2], false));
    assertEquals(a.checksum(), b.checksum());
    assertEquals(a, b);
  }

  @Test
  void updateHash_distinguishesSwappedIndicesAndDeltaBits() {
    long h = IngestStats.updateHash(1, 2, 0.5);
    assertNotEquals(h, IngestStats.updateHash(2, 1, 0.5));
    assertNotEquals(h, IngestStats.updateHash(1, 2, Math.nextUp(0.5)));
    assertNotEquals(h, IngestStats.updateHash(1, 3, 0.5));
    assertEquals(IngestStats.updateHash(1, 2, 0.0), IngestStats.updateHash(1, 2, -0.0));
  }

  @Test
  void counters_consumedEqualsAppliedPlusDropped() {
    IngestStats s = new IngestStats();
    s.applied(0, 0, 1, true);
    s.applied(0, 1, 1, false);
    s.dropped();
    s.countDeadLetter(DeadLetterReason.BAD_LENGTH);
    assertEquals(3, s.updatesConsumed());
    assertEquals(2, s.updatesApplied());
    assertEquals(1, s.updatesClipped());
    assertEquals(1, s.updatesDropped());
    assertEquals(1, s.deadLettered(DeadLetterReason.BAD_LENGTH));
    assertEquals(1, s.deadLetteredTotal());
    assertEquals(s, s.copy());
  }
}
