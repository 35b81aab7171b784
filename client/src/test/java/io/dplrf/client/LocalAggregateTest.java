package io.dplrf.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.lra.LaplaceSketchNoise;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.noise.GridGaussian;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The server side: it sums reports exactly and nothing else gets in, counts one report per slot,
 * and the sums carry the noise of every report.
 */
class LocalAggregateTest {

  /**
   * The server never sees an unnoised row through this API: every public constructor and method
   * of the aggregate takes only a protocol, a report, an index (part or slot) or the stream of
   * the server's own snapshot, and a report cannot be constructed outside this package (its only
   * makers are the randomizer and the checked decoder).
   */
  @Test
  void serverApi_acceptsReportsOnly_andReportsCannotBeBuiltFromOutside() {
    Set<Class<?>> allowed = Set.of(LocalReport.class, LocalProtocol.class, int.class,
        java.io.DataInput.class, java.io.DataOutput.class);
    List<Executable> api = new ArrayList<>(List.of(LocalAggregate.class.getConstructors()));
    for (Method m : LocalAggregate.class.getMethods()) {
      if (m.getDeclaringClass() == LocalAggregate.class) {
        api.add(m);
      }
    }
    for (Executable e : api) {
      for (Class<?> param : e.getParameterTypes()) {
        assertTrue(allowed.contains(param), e + " takes a " + param.getSimpleName());
      }
    }
    for (Constructor<?> c : LocalReport.class.getDeclaredConstructors()) {
      assertTrue(!Modifier.isPublic(c.getModifiers()) && !Modifier.isProtected(c.getModifiers()),
          "LocalReport has a public constructor: " + c);
    }
    assertTrue(Modifier.isFinal(LocalReport.class.getModifiers()), "LocalReport can be subclassed");
    assertTrue(LocalProtocol.class.isSealed(), "LocalProtocol can be extended");
  }

  @Test
  void add_refusesAReportOfAnotherProtocol() {
    LocalAggregate pca = new LocalAggregate(LocalPcaProtocolTest.protocol(6, 3, 1, 1));
    LocalReport r = LocalRandomizer.create(LocalPcaProtocolTest.protocol(6, 3, 1, 2))
        .report(new double[6]);
    assertThrows(IllegalArgumentException.class, () -> pca.add(r));
    assertEquals(0, pca.reports());
    LocalAggregate robust = new LocalAggregate(LocalRobustProtocolTest.protocol(10, 6, 1, 1, 1));
    LocalReport s = LocalRandomizer.create(LocalRobustProtocolTest.protocol(10, 6, 1, 1, 2))
        .report(0, new double[6]);
    assertThrows(IllegalArgumentException.class, () -> robust.add(s));
    assertEquals(0, robust.reports());
  }

  /** 70 reports of d = 6 of each protocol, in slots 0..69 where there are slots. */
  private static List<LocalReport> reports(LocalProtocol p, long seed) {
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
    LocalRandomizer r = LocalRandomizer.create(p);
    List<LocalReport> out = new ArrayList<>();
    for (int i = 0; i < 70; i++) {
      double[] x = new double[6];
      for (int j = 0; j < 6; j++) {
        x[j] = rnd.nextDouble(-0.5, 0.5);
      }
      out.add(p.hasSlots() ? r.report(i, x) : r.report(x));
    }
    return out;
  }

  private static List<LocalProtocol> protocols() {
    return List.of(LocalPcaProtocolTest.protocol(6, 4, 1, 1),
        LocalRobustProtocolTest.protocol(70, 6, 2, 1, 1));
  }

  /**
   * The sums are exact: bit for bit the same in any order, and equal to a double-precision sum
   * to its rounding (1e-9 relative is far above 70 additions' error, far below any noise).
   */
  @Test
  void sums_areExactAndOrderIndependent() {
    for (LocalProtocol p : protocols()) {
      List<LocalReport> rs = reports(p, 1);
      LocalAggregate a = new LocalAggregate(p);
      LocalAggregate b = new LocalAggregate(p);
      rs.forEach(a::add);
      List<LocalReport> shuffled = new ArrayList<>(rs);
      Collections.shuffle(shuffled, new java.util.Random(7));
      shuffled.forEach(b::add);
      for (int part = 0; part < p.parts().size(); part++) {
        double[] exact = a.sum(part).data();
        assertArrayEquals(exact, b.sum(part).data(), p.mechanism() + ": bit for bit in any order");
        double[] naive = new double[exact.length];
        for (LocalReport r : rs) {
          for (int e = 0; e < naive.length; e++) {
            naive[e] += r.valuesUnsafe(part)[e];
          }
        }
        for (int e = 0; e < exact.length; e++) {
          assertEquals(exact[e], naive[e], 1e-9 * (1 + Math.abs(exact[e])), "entry " + e);
        }
      }
    }
  }

  @Test
  void secondReportOfASlot_isRefused_andChangesNothing() throws IOException {
    LocalProtocol p = protocols().get(1);
    LocalAggregate agg = new LocalAggregate(p);
    List<LocalReport> first = reports(p, 2);
    for (int i = 0; i < 10; i++) {
      assertTrue(agg.add(first.get(i)));
    }
    byte[] before = state(agg);
    for (LocalReport again : reports(p, 3).subList(0, 10)) {
      assertFalse(agg.add(again), "slot " + again.slot());
    }
    assertArrayEquals(before, state(agg), "state unchanged");
    assertEquals(10, agg.reports());
    assertTrue(agg.counted(9));
    assertFalse(agg.counted(10));
    assertTrue(agg.add(first.get(10)));
    // Without slots every report counts, however alike.
    LocalAggregate pca = new LocalAggregate(protocols().get(0));
    LocalReport r = reports(protocols().get(0), 4).get(0);
    assertTrue(pca.add(r) && pca.add(r));
    assertEquals(2, pca.reports());
  }

  @Test
  void closedSums_areTheSumsAtTheLastClose_notTheLiveOnes() {
    for (LocalProtocol p : protocols()) {
      List<LocalReport> rs = reports(p, 5);
      LocalAggregate agg = new LocalAggregate(p);
      rs.subList(0, 10).forEach(agg::add);
      agg.closeEpoch();
      double[] atClose = agg.closedSum(0).data();
      assertArrayEquals(agg.sum(0).data(), atClose);
      rs.subList(10, 20).forEach(agg::add);
      assertArrayEquals(atClose, agg.closedSum(0).data());
      assertEquals(20, agg.reports());
      assertEquals(10, agg.reportsAtClose());
    }
  }

  @Test
  void state_roundTripsBitForBit_slotsIncluded() throws IOException {
    for (LocalProtocol p : protocols()) {
      List<LocalReport> rs = reports(p, 6);
      LocalAggregate agg = new LocalAggregate(p);
      rs.subList(0, 50).forEach(agg::add);
      agg.closeEpoch();
      rs.subList(60, 65).forEach(agg::add);
      byte[] state = state(agg);
      LocalAggregate back = new LocalAggregate(p);
      back.readState(new DataInputStream(new ByteArrayInputStream(state)));
      assertArrayEquals(state, state(back), p.mechanism());
      assertEquals(55, back.reports());
      assertEquals(50, back.reportsAtClose());
      assertArrayEquals(agg.closedSum(0).data(), back.closedSum(0).data());
      if (p.hasSlots()) {
        assertTrue(back.counted(64) && back.counted(0) && !back.counted(50));
        assertFalse(back.add(rs.get(64)), "slot bits restored");
      }
    }
  }

  /** Live and closed sums of 128 bits an entry per part, plus a bit per slot. */
  @Test
  void sizeInBytes_isTheSumArraysAndTheSlotBits() {
    LocalPcaProtocol pca = LocalPcaProtocolTest.protocol(5, 4, 1, 1);
    assertEquals(4L * 8 * 5 * 4, new LocalAggregate(pca).sizeInBytes());
    LocalRobustProtocol robust = LocalRobustProtocolTest.protocol(70, 6, 2, 1, 1);
    long entries = robust.parts().get(0).size() + robust.parts().get(1).size();
    assertEquals(4L * 8 * entries + 8 * 2, new LocalAggregate(robust).sizeInBytes());
  }

  private static byte[] state(LocalAggregate agg) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    agg.writeState(new DataOutputStream(out));
    return out.toByteArray();
  }

  /**
   * Y − Σ round(q(x_i)) is the sum of m independent noises: over the d·t entries,
   * Σ(·)²/(m σ²) ~ χ²_{dt}; rejected at tail 10⁻⁷ each side, and halved or missing noise fails.
   */
  @Test
  void pcaSum_isTheSketchOfAtAPlusNoiseOfVarianceMSigmaSquared() {
    int d = 24;
    int t = 24;
    int m = 300;
    LocalPcaProtocol p = LocalPcaProtocolTest.protocol(d, t, 1, 1);
    LocalAggregate agg = new LocalAggregate(p);
    double gamma = p.noise().grid().gamma();
    double[] exact = new double[d * t];
    for (int i = 0; i < m; i++) {
      double[] x = LocalPcaProtocolTest.row(d, 1, 100 + i);
      agg.add(LocalRandomizerTest.seeded(p, 1000 + i).report(x));
      double[] q = LocalPcaProtocolTest.query(p, x);
      for (int e = 0; e < q.length; e++) {
        exact[e] += GridGaussian.roundToGrid(q[e], gamma);
      }
    }
    assertEquals(m, agg.reports());
    Dense y = agg.sum(0);
    double var = m * p.noise().sigma() * p.noise().sigma();
    double ss = 0;
    for (int e = 0; e < exact.length; e++) {
      double z = y.data()[e] - exact[e];
      ss += z * z / var;
    }
    int dof = d * t;
    assertTrue(LocalRandomizerTest.accepts(ss, dof),
        "chi2 " + ss + " for " + dof + " dof (test keys 1000.." + (1000 + m) + ")");
    assertTrue(!LocalRandomizerTest.accepts(ss / 4, dof) && !LocalRandomizerTest.accepts(0, dof));
  }

  /**
   * Each summed part minus Σ round(q_i) is a sum of m independent Laplace(b) noises, variance
   * 2mb² per entry: Σ(·)²/(2mb²) over the part's entries is ≈ χ²_n (a sum of 400 Laplace
   * variables has excess kurtosis 3/400, which inflates the statistic's variance by 0.4% —
   * negligible at the 10⁻⁷ tails). Halved or missing noise fails. The sums handed to ROBUST-PCA
   * carry σ = √(2m)·b.
   */
  @Test
  void robustSums_areTheSketchesPlusTheNoiseOfMReports() {
    int m = 400;
    int d = 10;
    LocalRobustProtocol p = LocalRobustProtocolTest.protocol(m, d, 3, 1, 1);
    LocalAggregate agg = new LocalAggregate(p);
    double[][] exact = {new double[p.parts().get(0).size()], new double[p.parts().get(1).size()]};
    for (int i = 0; i < m; i++) {
      double[] x = LocalRobustProtocolTest.row(d, 1, 100 + i);
      agg.add(LocalRandomizerTest.seeded(p, 1000 + i).report(i, x));
      double[][] q = LocalRobustProtocolTest.query(p, i, x);
      for (int part = 0; part < 2; part++) {
        double gamma = p.parts().get(part).gamma();
        for (int e = 0; e < exact[part].length; e++) {
          exact[part][e] += GridGaussian.roundToGrid(q[part][e], gamma);
        }
      }
    }
    assertEquals(m, agg.reports());
    RobustSketches sk = p.sketches(agg.sum(0), agg.sum(1), agg.reports());
    assertTrue(sk.pca());
    check(sk.yr().data(), exact[0], p.plan().yr(), m, "Yr");
    check(sk.z().data(), exact[1], p.plan().z(), m, "Z");
    assertEquals(Math.sqrt(2 * m) * p.plan().yr().scale(), sk.noise().get(0).sigma(),
        1e-9 * sk.noise().get(0).sigma());
  }

  private static void check(double[] sum, double[] exact, LaplaceSketchNoise noise, int m,
      String part) {
    double var = 2.0 * m * noise.scale() * noise.scale();
    double ss = 0;
    for (int e = 0; e < exact.length; e++) {
      double z = sum[e] - exact[e];
      ss += z * z / var;
    }
    int dof = exact.length;
    assertTrue(LocalRandomizerTest.accepts(ss, dof),
        part + ": chi2 " + ss + " for " + dof + " dof (test keys 1000..1399)");
    assertTrue(!LocalRandomizerTest.accepts(ss / 4, dof) && !LocalRandomizerTest.accepts(0, dof),
        part + ": halved or missing noise would pass");
  }
}
