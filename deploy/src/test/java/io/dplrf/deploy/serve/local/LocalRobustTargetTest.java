package io.dplrf.deploy.serve.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.client.LocalRobustAggregate;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.client.LocalRobustRandomizer;
import io.dplrf.client.LocalRobustReport;
import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.release.RobustRelease;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Local-robust mode's aggregate: exact, order-independent, one report per slot, released at
 * epoch close by ROBUST-PCA's post-processing, restored whole.
 */
class LocalRobustTargetTest {
  static final PublicSeed SEED = PublicSeed.parse("0f".repeat(32));
  static final int M = 70;
  static final int D = 6;
  static final LocalRobustProtocol P = protocol(SEED, 2);

  static LocalRobustProtocol protocol(PublicSeed seed, int k) {
    return LocalRobustProtocol.of(seed, M, D, k, null, null, 1, 1.0,
        RobustMatrices.DEFAULT_STABLE_CLIP, new PrivacyParams(1, LocalRobustParts.UNUSED_DELTA));
  }

  /** Reports of slots {@code from..to-1}, rows uniform in [-0.5, 0.5]^d. */
  private static List<LocalRobustReport> reports(int from, int to, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<LocalRobustReport> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      double[] x = new double[D];
      for (int j = 0; j < D; j++) {
        x[j] = rnd.nextDouble(-0.5, 0.5);
      }
      out.add(LocalRobustRandomizer.create(P).report(i, x));
    }
    return out;
  }

  private static void addAll(LocalRobustTarget t, List<LocalRobustReport> rs) {
    for (LocalRobustReport r : rs) {
      assertTrue(t.addRobustReport(r), "slot " + r.slot());
    }
  }

  @Test
  void sums_areExactAndOrderIndependent_andAgreeWithTheClientAggregate() {
    List<LocalRobustReport> rs = reports(0, M, 1);
    LocalRobustTarget a = new LocalRobustTarget(P, 3);
    LocalRobustTarget b = new LocalRobustTarget(P, 3);
    LocalRobustAggregate reference = new LocalRobustAggregate(P);
    addAll(a, rs);
    rs.forEach(reference::add);
    List<LocalRobustReport> shuffled = new ArrayList<>(rs);
    Collections.shuffle(shuffled, new java.util.Random(7));
    addAll(b, shuffled);
    a.closeEpoch();
    b.closeEpoch();
    RobustSketches sa = a.closedSketches();
    RobustSketches sb = b.closedSketches();
    assertArrayEquals(sa.yr().data(), sb.yr().data(), "Yr bit for bit in any order");
    assertArrayEquals(sa.z().data(), sb.z().data(), "Z bit for bit in any order");
    RobustSketches ref = reference.sketches();
    for (Dense[] pair : new Dense[][] {{sa.yr(), ref.yr()}, {sa.z(), ref.z()}}) {
      double[] exact = pair[0].data();
      double[] sum = pair[1].data();
      for (int e = 0; e < exact.length; e++) {
        assertEquals(exact[e], sum[e], 1e-9 * (1 + Math.abs(exact[e])), "entry " + e);
      }
    }
  }

  @Test
  void secondReportOfASlot_isRefused_andChangesNothing() throws IOException {
    LocalRobustTarget t = new LocalRobustTarget(P, 2);
    addAll(t, reports(0, 10, 2));
    ByteArrayOutputStream before = new ByteArrayOutputStream();
    t.writeState(before);
    for (LocalRobustReport again : reports(0, 10, 3)) {
      assertFalse(t.addRobustReport(again), "slot " + again.slot());
    }
    ByteArrayOutputStream after = new ByteArrayOutputStream();
    t.writeState(after);
    assertArrayEquals(before.toByteArray(), after.toByteArray(), "state unchanged");
    assertEquals(10, t.reports());
    assertTrue(t.counted(9));
    assertFalse(t.counted(10));
    assertTrue(t.addRobustReport(reports(10, 11, 4).get(0)));
    LocalRobustReport foreign = LocalRobustRandomizer.create(protocol(SEED, 1))
        .report(20, new double[D]);
    assertThrows(IllegalArgumentException.class, () -> t.addRobustReport(foreign));
  }

  @Test
  void closedSketches_areTheSumsAtTheLastEpochClose_notTheLiveOnes() {
    LocalRobustTarget t = new LocalRobustTarget(P, 2);
    addAll(t, reports(0, 10, 5));
    t.closeEpoch();
    RobustSketches atClose = t.closedSketches();
    addAll(t, reports(10, 20, 6));
    assertArrayEquals(atClose.yr().data(), t.closedSketches().yr().data());
    assertArrayEquals(atClose.z().data(), t.closedSketches().z().data());
    assertEquals(20, t.reports());
    assertEquals(10, t.reportsAtClose());
    t.closeEpoch();
    assertTrue(t.exhausted());
    assertThrows(IllegalStateException.class, t::closeEpoch);
  }

  @Test
  void state_roundTripsBitForBit_slotsIncluded_andRefusesAnotherProtocolOrT() throws IOException {
    LocalRobustTarget t = new LocalRobustTarget(P, 4);
    addAll(t, reports(0, 50, 7));
    t.closeEpoch();
    addAll(t, reports(60, 65, 8));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    t.writeState(out);
    LocalRobustTarget r = new LocalRobustTarget(P, 4);
    r.readState(new ByteArrayInputStream(out.toByteArray()));
    assertEquals(1, r.epochsClosed());
    assertEquals(55, r.reports());
    assertEquals(50, r.reportsAtClose());
    assertTrue(r.counted(64) && r.counted(0) && !r.counted(50));
    assertFalse(r.addRobustReport(reports(64, 65, 9).get(0)), "slot bits restored");
    assertArrayEquals(t.closedSketches().z().data(), r.closedSketches().z().data());
    ByteArrayOutputStream again = new ByteArrayOutputStream();
    r.writeState(again);
    assertArrayEquals(out.toByteArray(), again.toByteArray(), "live sums restored too");
    byte[] state = out.toByteArray();
    assertThrows(IOException.class,
        () -> new LocalRobustTarget(P, 5).readState(new ByteArrayInputStream(state)));
    LocalRobustProtocol other = protocol(PublicSeed.parse("1f".repeat(32)), 2);
    assertThrows(IOException.class,
        () -> new LocalRobustTarget(other, 4).readState(new ByteArrayInputStream(state)));
    // A local (paper 002) aggregate's state is not a local-robust one, and vice versa.
    IOException e = assertThrows(IOException.class, () -> new LocalTarget(LocalTargetTest.P, 4)
        .readState(new ByteArrayInputStream(state)));
    assertTrue(e.getMessage().contains("no local-mode aggregate"), e.getMessage());
  }

  /**
   * The release is ROBUST-PCA's basis of the closed sums: V (d×k) with orthonormal columns, the
   * same subspace as the offline path (client aggregate + RobustRelease.basis) gives for the same
   * reports, served as V S Vᵀ with δ = 0 in its metadata.
   */
  @Test
  void release_isTheRobustPcaBasisOfTheClosedSums() {
    List<LocalRobustReport> rs = reports(0, M, 10);
    LocalRobustTarget t = new LocalRobustTarget(P, 2);
    addAll(t, rs);
    t.closeEpoch();
    ServedRelease rel = LocalRobustParts.release(t, 1, 2, Instant.EPOCH);
    Dense v = rel.factorization().u();
    assertEquals(D, v.rows());
    assertEquals(2, v.cols());
    assertOrthonormal(v);
    assertArrayEquals(v.data(), rel.factorization().v().data());
    double[] s = rel.factorization().s();
    assertTrue(s[0] >= s[1] && s[1] >= 0, "sorted, non-negative");
    assertEquals("local-robust", rel.metadata().get("mechanism"));
    assertEquals(0.0, rel.metadata().get("delta"));
    assertEquals(M, rel.metadata().get("users"));
    LocalRobustAggregate offline = new LocalRobustAggregate(P);
    rs.forEach(offline::add);
    Dense w = RobustRelease.basis(offline.sketches(), 2).v();
    // Same subspace: ||V Vᵀ − W Wᵀ||_F small (the sums differ by summation rounding only).
    double diff = 0;
    for (int a = 0; a < D; a++) {
      for (int b = 0; b < D; b++) {
        double pv = 0;
        double pw = 0;
        for (int c = 0; c < 2; c++) {
          pv += v.get(a, c) * v.get(b, c);
          pw += w.get(a, c) * w.get(b, c);
        }
        diff += (pv - pw) * (pv - pw);
      }
    }
    assertTrue(Math.sqrt(diff) < 1e-6, "projection difference " + Math.sqrt(diff));
  }

  static void assertOrthonormal(Dense v) {
    for (int a = 0; a < v.cols(); a++) {
      for (int b = 0; b < v.cols(); b++) {
        double dot = 0;
        for (int r = 0; r < v.rows(); r++) {
          dot += v.get(r, a) * v.get(r, b);
        }
        assertEquals(a == b ? 1 : 0, dot, 1e-9, "V^T V at " + a + "," + b);
      }
    }
  }
}
