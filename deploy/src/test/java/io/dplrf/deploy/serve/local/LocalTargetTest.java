package io.dplrf.deploy.serve.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.client.LocalPcaAggregate;
import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalRandomizer;
import io.dplrf.client.LocalReport;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Local mode's aggregate: exact, order-independent, released at epoch close, restored whole. */
class LocalTargetTest {
  static final PublicSeed SEED = PublicSeed.parse("0f".repeat(32));
  static final LocalPcaProtocol P = LocalPcaProtocol.of(SEED, 5, 4, 1.0, new PrivacyParams(1, 1e-6));

  private static List<LocalReport> reports(int n, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    LocalRandomizer r = LocalRandomizer.create(P);
    List<LocalReport> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double[] x = new double[5];
      for (int j = 0; j < 5; j++) {
        x[j] = rnd.nextDouble(-0.5, 0.5);
      }
      out.add(r.report(x));
    }
    return out;
  }

  @Test
  void sum_isExactAndOrderIndependent_andAgreesWithTheClientAggregate() {
    List<LocalReport> rs = reports(300, 1);
    LocalTarget a = new LocalTarget(P, 3);
    LocalTarget b = new LocalTarget(P, 3);
    LocalPcaAggregate reference = new LocalPcaAggregate(P);
    rs.forEach(a::addReport);
    rs.forEach(reference::add);
    List<LocalReport> shuffled = new ArrayList<>(rs);
    Collections.shuffle(shuffled, new java.util.Random(7));
    shuffled.forEach(b::addReport);
    a.closeEpoch();
    b.closeEpoch();
    assertArrayEquals(a.closedSum().data(), b.closedSum().data(), "bit for bit in any order");
    double[] ref = reference.sum().data();
    double[] exact = a.closedSum().data();
    for (int e = 0; e < ref.length; e++) {
      assertEquals(exact[e], ref[e], 1e-9 * (1 + Math.abs(exact[e])), "entry " + e);
    }
  }

  @Test
  void closedSum_isTheSumAtTheLastEpochClose_notTheLiveOne() {
    LocalTarget t = new LocalTarget(P, 2);
    reports(10, 2).forEach(t::addReport);
    t.closeEpoch();
    double[] atClose = t.closedSum().data();
    reports(10, 3).forEach(t::addReport);
    assertArrayEquals(atClose, t.closedSum().data());
    assertEquals(20, t.reports());
    assertEquals(10, t.reportsAtClose());
    t.closeEpoch();
    assertTrue(t.exhausted());
    assertThrows(IllegalStateException.class, t::closeEpoch);
  }

  @Test
  void toDouble_of128BitSums_isCorrectAcrossTheLowWord() {
    assertEquals(-1.0, GridSum.toDouble(-1, -1));
    assertEquals(0x1p64, GridSum.toDouble(1, 0));
    assertEquals(0x1p63, GridSum.toDouble(0, Long.MIN_VALUE)); // lo unsigned 2^63
    assertEquals(-0x1p64, GridSum.toDouble(-1, 0));
  }

  /** Live and closed sums, each a (hi, lo) pair of long arrays with one entry per d·k. */
  @Test
  void sizeInBytes_isTheFourSumArrays() {
    assertEquals(4L * 8 * P.dimension() * P.sketchCols(), new LocalTarget(P, 1).sizeInBytes());
  }

  @Test
  void state_roundTripsBitForBit_andRefusesAnotherProtocolOrT() throws IOException {
    LocalTarget t = new LocalTarget(P, 4);
    reports(50, 4).forEach(t::addReport);
    t.closeEpoch();
    reports(5, 5).forEach(t::addReport);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    t.writeState(out);
    LocalTarget r = new LocalTarget(P, 4);
    r.readState(new ByteArrayInputStream(out.toByteArray()));
    assertEquals(1, r.epochsClosed());
    assertEquals(55, r.reports());
    assertArrayEquals(t.closedSum().data(), r.closedSum().data());
    ByteArrayOutputStream again = new ByteArrayOutputStream();
    r.writeState(again);
    assertArrayEquals(out.toByteArray(), again.toByteArray(), "live sum restored too");
    assertThrows(IOException.class,
        () -> new LocalTarget(P, 5).readState(new ByteArrayInputStream(out.toByteArray())));
    LocalPcaProtocol other = LocalPcaProtocol.of(PublicSeed.parse("1f".repeat(32)), 5, 4, 1.0,
        new PrivacyParams(1, 1e-6));
    assertThrows(IOException.class,
        () -> new LocalTarget(other, 4).readState(new ByteArrayInputStream(out.toByteArray())));
  }

  @Test
  void seed_isCreatedOnceKeptAndCheckedAgainstTheSetting(@TempDir Path dir) throws IOException {
    PublicSeed first = LocalPcaParts.seed(dir, null);
    assertEquals(first, LocalPcaParts.seed(dir, null), "kept in the state directory");
    assertEquals(first, LocalPcaParts.seed(dir, first));
    IOException e = assertThrows(IOException.class, () -> LocalPcaParts.seed(dir, SEED));
    assertTrue(e.getMessage().contains("differs"), e.getMessage());
    Path other = dir.resolve("other");
    assertEquals(SEED, LocalPcaParts.seed(other, SEED));
    assertEquals(SEED.toString(), Files.readString(other.resolve(LocalPcaParts.SEED_FILE)).strip());
  }
}
