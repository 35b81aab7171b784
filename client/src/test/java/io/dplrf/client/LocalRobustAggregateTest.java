package io.dplrf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.lra.LaplaceSketchNoise;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.noise.GridLaplace;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The LOCAL-ROBUST-PCA server side: it sums reports, nothing else gets in, and the sums carry m reports' noise. */
class LocalRobustAggregateTest {

  /**
   * The server never sees an unnoised row through this API: every public constructor and method
   * of the aggregate takes only a protocol or a report, and a report cannot be constructed
   * outside this package (its only makers are the randomizer and the checked decoder).
   */
  @Test
  void serverApi_acceptsReportsOnly_andReportsCannotBeBuiltFromOutside() {
    Set<Class<?>> allowed = Set.of(LocalRobustReport.class, LocalRobustProtocol.class);
    List<Executable> api = new ArrayList<>(List.of(LocalRobustAggregate.class.getConstructors()));
    for (Method m : LocalRobustAggregate.class.getMethods()) {
      if (m.getDeclaringClass() == LocalRobustAggregate.class) {
        api.add(m);
      }
    }
    for (Executable e : api) {
      for (Class<?> param : e.getParameterTypes()) {
        assertTrue(allowed.contains(param), e + " takes a " + param.getSimpleName());
      }
    }
    for (Constructor<?> c : LocalRobustReport.class.getDeclaredConstructors()) {
      assertTrue(!Modifier.isPublic(c.getModifiers()) && !Modifier.isProtected(c.getModifiers()),
          "LocalRobustReport has a public constructor: " + c);
    }
    assertTrue(Modifier.isFinal(LocalRobustReport.class.getModifiers()));
  }

  @Test
  void add_refusesAReportOfAnotherProtocol() {
    LocalRobustProtocol p = LocalRobustRandomizerTest.protocol(10, 6, 1, 1, 1);
    LocalRobustProtocol other = LocalRobustRandomizerTest.protocol(10, 6, 1, 1, 2);
    LocalRobustAggregate agg = new LocalRobustAggregate(p);
    LocalRobustReport r = LocalRobustRandomizer.create(other).report(0, new double[6]);
    assertThrows(IllegalArgumentException.class, () -> agg.add(r));
    assertEquals(0, agg.reports());
  }

  /**
   * Each summed part minus Σ round(q_i) is a sum of m independent Laplace(b) noises, variance
   * 2mb² per entry: Σ(·)²/(2mb²) over the part's entries is ≈ χ²_n (a sum of 400 Laplace
   * variables has excess kurtosis 3/400, which inflates the statistic's variance by 0.4% —
   * negligible at the 10⁻⁷ tails). Halved or missing noise fails.
   */
  @Test
  void sums_areTheSketchesPlusTheNoiseOfMReports() {
    int m = 400;
    int d = 10;
    LocalRobustProtocol p = LocalRobustRandomizerTest.protocol(m, d, 3, 1, 1);
    LocalRobustAggregate agg = new LocalRobustAggregate(p);
    double[] yr = new double[p.sizes().t() * d];
    double[] z = new double[p.sizes().v() * p.sizes().v()];
    double gr = p.plan().yr().grid().gamma();
    double gz = p.plan().z().grid().gamma();
    for (int i = 0; i < m; i++) {
      double[] x = LocalRobustRandomizerTest.row(d, 1, 100 + i);
      agg.add(LocalRobustRandomizerTest.seeded(p, 1000 + i).report(i, x));
      double[][] q = LocalRobustRandomizer.sketch(p, i, LocalRobustRandomizer.clipped(p, x));
      for (int e = 0; e < yr.length; e++) {
        yr[e] += GridLaplace.roundToGrid(q[0][e], gr);
      }
      for (int e = 0; e < z.length; e++) {
        z[e] += GridLaplace.roundToGrid(q[1][e], gz);
      }
    }
    assertEquals(m, agg.reports());
    RobustSketches sk = agg.sketches();
    assertTrue(sk.pca());
    check(sk.yr().data(), yr, p.plan().yr(), m, "Yr");
    check(sk.z().data(), z, p.plan().z(), m, "Z");
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
