package io.dplrf.deploy.serve.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.client.LocalAggregate;
import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalProtocol;
import io.dplrf.client.LocalRandomizer;
import io.dplrf.client.LocalReport;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.deploy.http.ServedRelease;
import io.dplrf.release.Pca;
import io.dplrf.release.RobustRelease;
import io.dplrf.sketch.lra.RobustMatrices;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local mode's target, for both protocols: released at epoch close, exhausted at T, restored
 * whole, refusing another protocol's or mechanism's state; its release is the protocol's
 * post-processing of the closed sums. (The sums themselves: the client's LocalAggregateTest; the
 * snapshot bytes: {@link LocalSnapshotFormatTest}.)
 */
class LocalTargetTest {
  static final PublicSeed SEED = PublicSeed.parse("0f".repeat(32));
  static final int M = 70;
  static final int D = 6;
  static final LocalPcaProtocol PCA = pca(SEED);
  static final LocalRobustProtocol ROBUST = robust(SEED, 2);

  static LocalPcaProtocol pca(PublicSeed seed) {
    return LocalPcaProtocol.of(seed, D, 4, 1.0, new PrivacyParams(1, 1e-6));
  }

  static LocalRobustProtocol robust(PublicSeed seed, int k) {
    return LocalRobustProtocol.of(seed, M, D, k, null, null, 1, 1.0,
        RobustMatrices.DEFAULT_STABLE_CLIP, new PrivacyParams(1, ServedRobustPca.UNUSED_DELTA));
  }

  /** Reports of rows uniform in [-0.5, 0.5]^d, in slots {@code from..to-1} with slots. */
  static List<LocalReport> reports(LocalProtocol p, int from, int to, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<LocalReport> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      double[] x = new double[D];
      for (int j = 0; j < D; j++) {
        x[j] = rnd.nextDouble(-0.5, 0.5);
      }
      LocalRandomizer r = LocalRandomizer.create(p);
      out.add(p.hasSlots() ? r.report(i, x) : r.report(x));
    }
    return out;
  }

  private static void addAll(LocalTarget t, List<LocalReport> rs) {
    for (LocalReport r : rs) {
      assertTrue(t.addReport(r), r.toString());
    }
  }

  private static byte[] state(LocalTarget t) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    t.writeState(out);
    return out.toByteArray();
  }

  @Test
  void closedSums_areTheSumsAtTheLastEpochClose_andTheTargetIsExhaustedAtT() {
    for (LocalProtocol p : List.of(PCA, ROBUST)) {
      LocalTarget t = new LocalTarget(p, 2);
      addAll(t, reports(p, 0, 10, 2));
      t.closeEpoch();
      double[] atClose = t.closedSum(0).data();
      addAll(t, reports(p, 10, 20, 3));
      assertArrayEquals(atClose, t.closedSum(0).data());
      assertEquals(20, t.reports());
      assertEquals(10, t.reportsAtClose());
      assertEquals(1, t.epochsClosed());
      t.closeEpoch();
      assertTrue(t.exhausted());
      assertThrows(IllegalStateException.class, t::closeEpoch);
    }
  }

  @Test
  void secondReportOfASlot_isRefused_andAForeignReportThrows() throws IOException {
    LocalTarget t = new LocalTarget(ROBUST, 2);
    addAll(t, reports(ROBUST, 0, 10, 2));
    byte[] before = state(t);
    for (LocalReport again : reports(ROBUST, 0, 10, 3)) {
      assertFalse(t.addReport(again), again.toString());
    }
    assertArrayEquals(before, state(t), "state unchanged");
    assertTrue(t.counted(9) && !t.counted(10));
    LocalReport foreign = reports(robust(SEED, 1), 20, 21, 4).get(0);
    assertThrows(IllegalArgumentException.class, () -> t.addReport(foreign));
  }

  @Test
  void state_roundTripsBitForBit_andRefusesAnotherProtocolOrTOrMechanism() throws IOException {
    for (LocalProtocol p : List.of(PCA, ROBUST)) {
      LocalTarget t = new LocalTarget(p, 4);
      addAll(t, reports(p, 0, 50, 7));
      t.closeEpoch();
      addAll(t, reports(p, 60, 65, 8));
      byte[] state = state(t);
      LocalTarget r = new LocalTarget(p, 4);
      r.readState(new ByteArrayInputStream(state));
      assertEquals(1, r.epochsClosed());
      assertEquals(55, r.reports());
      assertEquals(50, r.reportsAtClose());
      assertArrayEquals(state, state(r), p.mechanism() + ": live sums and slots restored too");
      assertThrows(IOException.class,
          () -> new LocalTarget(p, 5).readState(new ByteArrayInputStream(state)));
      LocalProtocol other = p.hasSlots() ? robust(PublicSeed.parse("1f".repeat(32)), 2)
          : pca(PublicSeed.parse("1f".repeat(32)));
      assertThrows(IOException.class,
          () -> new LocalTarget(other, 4).readState(new ByteArrayInputStream(state)));
    }
    // A local (paper 002) aggregate's state is not a local-robust one, and vice versa.
    byte[] robustState = state(new LocalTarget(ROBUST, 4));
    IOException e = assertThrows(IOException.class,
        () -> new LocalTarget(PCA, 4).readState(new ByteArrayInputStream(robustState)));
    assertTrue(e.getMessage().contains("no local-mode aggregate"), e.getMessage());
    byte[] pcaState = state(new LocalTarget(PCA, 4));
    e = assertThrows(IOException.class,
        () -> new LocalTarget(ROBUST, 4).readState(new ByteArrayInputStream(pcaState)));
    assertTrue(e.getMessage().contains("no local-robust aggregate"), e.getMessage());
  }

  /**
   * Local-DP PCA's release is the top-k basis of the closed sum Y ({@link Pca#fromRangeSketch},
   * as offline), served as V S Vᵀ with the protocol in its metadata.
   */
  @Test
  void pcaRelease_isTheTopKBasisOfTheClosedSum() {
    LocalTarget t = new LocalTarget(PCA, 2);
    addAll(t, reports(PCA, 0, 40, 9));
    t.closeEpoch();
    addAll(t, reports(PCA, 40, 50, 10)); // after the close: not in the release
    ServedRelease rel = t.release(1, 2, Instant.EPOCH);
    Pca.Subspace expected = Pca.fromRangeSketch(t.closedSum(0), 2);
    assertArrayEquals(expected.v().data(), rel.factorization().u().data());
    assertArrayEquals(expected.v().data(), rel.factorization().v().data());
    assertArrayEquals(expected.s(), rel.factorization().s());
    assertEquals("local", rel.metadata().get("mechanism"));
    assertEquals(PCA.id(), rel.metadata().get("protocolId"));
    assertEquals(4, rel.metadata().get("sketchCols"));
  }

  /**
   * LOCAL-ROBUST-PCA's release is ROBUST-PCA's basis of the closed sums: V (d×k) with
   * orthonormal columns, the same subspace as the offline path (client aggregate +
   * RobustRelease.basis) gives for the same reports, served as V S Vᵀ with δ = 0 in its metadata.
   */
  @Test
  void robustRelease_isTheRobustPcaBasisOfTheClosedSums() {
    List<LocalReport> rs = reports(ROBUST, 0, M, 10);
    LocalTarget t = new LocalTarget(ROBUST, 2);
    addAll(t, rs);
    t.closeEpoch();
    ServedRelease rel = t.release(1, 2, Instant.EPOCH);
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
    LocalAggregate offline = new LocalAggregate(ROBUST);
    rs.forEach(offline::add);
    Dense w = RobustRelease.basis(
        ROBUST.sketches(offline.sum(0), offline.sum(1), offline.reports()), 2).v();
    // Same sums exactly, so the same subspace: ||V Vᵀ − W Wᵀ||_F at rounding level.
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

  @Test
  void seed_isCreatedOnceKeptAndCheckedAgainstTheSetting(@TempDir Path dir) throws IOException {
    PublicSeed first = LocalMode.seed(dir, null);
    assertEquals(first, LocalMode.seed(dir, null), "kept in the state directory");
    assertEquals(first, LocalMode.seed(dir, first));
    IOException e = assertThrows(IOException.class, () -> LocalMode.seed(dir, SEED));
    assertTrue(e.getMessage().contains("differs"), e.getMessage());
    Path other = dir.resolve("other");
    assertEquals(SEED, LocalMode.seed(other, SEED));
    assertEquals(SEED.toString(), Files.readString(other.resolve(LocalMode.SEED_FILE)).strip());
  }
}
