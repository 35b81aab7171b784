package io.dplrf.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import org.junit.jupiter.api.Test;

class LocalPcaProtocolTest {
  private static final PrivacyParams P = new PrivacyParams(1, 1e-6);

  @Test
  void phi_hasOrthonormalColumnsToWorkingPrecision() {
    LocalPcaProtocol p = LocalPcaProtocol.of(LocalRandomizerTest.PUBLIC, 64, 64, 1, P);
    assertTrue(p.orthonormalityDefect() < 1e-13, "defect " + p.orthonormalityDefect());
    assertEquals(LocalPcaProtocol.orthonormalityDefect(p.sketchMatrix(), 64, 64),
        p.orthonormalityDefect());
  }

  @Test
  void sameParameters_giveTheSamePhiAndId_anyChangeGivesAnotherId() {
    LocalPcaProtocol a = LocalPcaProtocol.of(LocalRandomizerTest.PUBLIC, 10, 4, 1, P);
    LocalPcaProtocol b = LocalPcaProtocol.of(
        PublicSeed.parse(LocalRandomizerTest.PUBLIC.toString()), 10, 4, 1, P);
    assertArrayEquals(a.sketchMatrix(), b.sketchMatrix());
    assertEquals(a.id(), b.id());
    assertEquals(16, a.id().length());
    assertNotEquals(a.id(), LocalPcaProtocol.of(PublicSeed.random(), 10, 4, 1, P).id());
    assertNotEquals(a.id(), LocalPcaProtocol.of(LocalRandomizerTest.PUBLIC, 10, 5, 1, P).id());
    assertNotEquals(a.id(), LocalPcaProtocol.of(LocalRandomizerTest.PUBLIC, 10, 4, 2, P).id());
    assertNotEquals(a.id(), LocalPcaProtocol.of(LocalRandomizerTest.PUBLIC, 10, 4, 1,
        new PrivacyParams(2, 1e-6)).id());
  }

  @Test
  void of_refusesInvalidParameters() {
    PublicSeed s = LocalRandomizerTest.PUBLIC;
    assertThrows(IllegalArgumentException.class, () -> LocalPcaProtocol.of(s, 4, 5, 1, P));
    assertThrows(IllegalArgumentException.class, () -> LocalPcaProtocol.of(s, 0, 1, 1, P));
    assertThrows(IllegalArgumentException.class, () -> LocalPcaProtocol.of(s, 4, 0, 1, P));
    assertThrows(IllegalArgumentException.class, () -> LocalPcaProtocol.of(s, 4, 2, 0, P));
    assertThrows(IllegalArgumentException.class,
        () -> LocalPcaProtocol.of(s, 4, 2, Double.POSITIVE_INFINITY, P));
  }
}
