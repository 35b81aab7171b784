package io.dplrf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.calibration.ChiSquare;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.PublicSeed;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * What the randomizer does the same for every protocol: reports on their parts' grids, carrying
 * the protocol id and the slot when there is one; fresh noise for every report and every
 * randomizer; refusals of bad rows and of a slot where the protocol has none (or none where it
 * has). The noise distributions, which differ, are tested in {@link LocalPcaProtocolTest} and
 * {@link LocalRobustProtocolTest}.
 */
class LocalRandomizerTest {
  static final double TAIL = 1e-7;
  static final PublicSeed PUBLIC = PublicSeed.parse(
      "5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed5eed");

  /** A randomizer whose noise comes from a test key: reproducible. */
  static LocalRandomizer seeded(LocalProtocol p, long seed) {
    return LocalRandomizer.withBits(p, KeyStream.of(SecretKey.forTesting(seed), "test/noise").bits());
  }

  /** False if either χ²_dof tail probability of {@code stat} is below {@link #TAIL}. */
  static boolean accepts(double stat, int dof) {
    double upper = ChiSquare.upperTail(stat, dof);
    return upper > TAIL && 1 - upper > TAIL;
  }

  /** One protocol of each kind, d = 8. */
  static List<LocalProtocol> protocols() {
    return List.of(LocalPcaProtocolTest.protocol(8, 4, 1, 1),
        LocalRobustProtocolTest.protocol(20, 8, 2, 1, 1));
  }

  /** The report of {@code row}, in slot 5 if the protocol has slots. */
  static LocalReport report(LocalRandomizer r, double[] row) {
    return r.protocol().hasSlots() ? r.report(5, row) : r.report(row);
  }

  @Test
  void report_valuesAreOnTheirPartsGrids_withTheProtocolsShapeIdAndSlot() {
    for (LocalProtocol p : protocols()) {
      LocalReport rep = report(LocalRandomizer.create(p), LocalPcaProtocolTest.row(8, 1, 5));
      assertEquals(p.id(), rep.protocolId());
      assertEquals(p.hasSlots() ? OptionalInt.of(5) : OptionalInt.empty(), rep.slot());
      assertEquals(p.parts(), rep.parts());
      for (int part = 0; part < p.parts().size(); part++) {
        ReportPart shape = p.parts().get(part);
        double[] v = rep.values(part);
        assertEquals(shape.size(), v.length, p.mechanism() + " " + shape.name());
        for (double x : v) {
          assertEquals(GridGaussian.roundToGrid(x, shape.gamma()), x, shape.name());
          assertTrue(Math.abs(x) <= shape.exactBound(), shape.name());
        }
      }
    }
  }

  /** Noise is never reused: two reports of one randomizer, and two randomizers, differ everywhere. */
  @Test
  void twoReportsOfTheSameRow_differ_andTwoClientsDrawDifferentNoise() {
    for (LocalProtocol p : protocols()) {
      double[] x = LocalPcaProtocolTest.row(8, 1, 3);
      LocalRandomizer a = LocalRandomizer.create(p);
      LocalReport r1 = report(a, x);
      LocalReport r2 = report(a, x);
      LocalReport r3 = report(LocalRandomizer.create(p), x);
      for (int part = 0; part < p.parts().size(); part++) {
        for (int e = 0; e < p.parts().get(part).size(); e++) {
          String where = p.mechanism() + " part " + part + " entry " + e;
          assertNotEquals(r1.valuesUnsafe(part)[e], r2.valuesUnsafe(part)[e], where);
          assertNotEquals(r1.valuesUnsafe(part)[e], r3.valuesUnsafe(part)[e], where);
        }
      }
    }
  }

  @Test
  void report_refusesWrongLengthOrNonFiniteRows() {
    for (LocalProtocol p : protocols()) {
      LocalRandomizer r = LocalRandomizer.create(p);
      assertThrows(IllegalArgumentException.class, () -> report(r, new double[9]));
      double[] nan = new double[8];
      nan[1] = Double.NaN;
      assertThrows(IllegalArgumentException.class, () -> report(r, nan));
    }
  }

  @Test
  void aSlot_isRequiredExactlyWhereTheProtocolHasSlots_andInRange() {
    LocalRandomizer pca = LocalRandomizer.create(LocalPcaProtocolTest.protocol(8, 4, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> pca.report(0, new double[8]));
    LocalRandomizer robust = LocalRandomizer.create(LocalRobustProtocolTest.protocol(20, 8, 2, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> robust.report(new double[8]));
    assertThrows(IllegalArgumentException.class, () -> robust.report(20, new double[8]));
    assertThrows(IllegalArgumentException.class, () -> robust.report(-1, new double[8]));
    assertEquals(OptionalInt.of(19), robust.report(19, new double[8]).slot());
  }
}
