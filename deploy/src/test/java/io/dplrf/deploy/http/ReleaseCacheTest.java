package io.dplrf.deploy.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.release.Factorization;
import io.dplrf.sketch.matrix.Dense;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReleaseCacheTest {
  @Test
  void publish_replacesAtomically_andOnlyWithLaterPrefixReleases() {
    ReleaseCache c = new ReleaseCache();
    assertTrue(c.latest().isEmpty());
    assertTrue(c.ranges().isEmpty());
    c.publish(Fixtures.release(2));
    assertEquals(2, c.latest().orElseThrow().epoch());
    assertThrows(IllegalArgumentException.class, () -> c.publish(Fixtures.release(2)));
    assertThrows(IllegalArgumentException.class, () -> c.publish(Fixtures.release(1)));
    assertThrows(IllegalArgumentException.class, () -> c.publish(new ServedRelease(2, 3,
        Fixtures.factorization(), Fixtures.utility(), Fixtures.AT, Map.of())));
    c.publish(Fixtures.release(3));
    assertEquals(3, c.latest().orElseThrow().epoch());
  }

  @Test
  void release_rejectsNonFiniteFactorsAndNonJsonMetadata() {
    Factorization nan = new Factorization(new Dense(1, 1, new double[] {Double.NaN}), new double[] {1},
        new Dense(1, 1, new double[] {1}));
    assertEquals("U entries must be finite. Provided value: NaN", assertThrows(IllegalArgumentException.class,
        () -> new ServedRelease(1, 1, nan, Fixtures.utility(), Fixtures.AT, Map.of())).getMessage());
    assertThrows(IllegalArgumentException.class, () -> new ServedRelease(1, 1, Fixtures.factorization(),
        Fixtures.utility(), Fixtures.AT, Map.of("x", new Object())));
    assertThrows(IllegalArgumentException.class, () -> new ServedRelease(2, 1, Fixtures.factorization(),
        Fixtures.utility(), Fixtures.AT, Map.of()));
  }
}
