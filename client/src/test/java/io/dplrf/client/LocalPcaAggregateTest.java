package io.dplrf.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.matrix.Dense;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The server side: it sums reports, nothing else gets in, and the sum carries m·σ² noise. */
class LocalPcaAggregateTest {

  /**
   * The server never sees an unnoised row through this API: every public constructor and method
   * of the aggregate takes only a protocol or a report, and a report cannot be constructed
   * outside this package (its only makers are the randomizer and the checked decoder).
   */
  @Test
  void serverApi_acceptsReportsOnly_andReportsCannotBeBuiltFromOutside() {
    Set<Class<?>> allowed = Set.of(LocalReport.class, LocalPcaProtocol.class);
    List<Executable> api = new ArrayList<>(List.of(LocalPcaAggregate.class.getConstructors()));
    for (Method m : LocalPcaAggregate.class.getMethods()) {
      if (m.getDeclaringClass() == LocalPcaAggregate.class) {
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
  }

  @Test
  void add_refusesAReportOfAnotherProtocol() {
    LocalPcaProtocol p = LocalRandomizerTest.protocol(6, 3, 1, 1);
    LocalPcaProtocol other = LocalRandomizerTest.protocol(6, 3, 1, 2);
    LocalPcaAggregate agg = new LocalPcaAggregate(p);
    LocalReport r = LocalRandomizer.create(other).report(new double[6]);
    assertThrows(IllegalArgumentException.class, () -> agg.add(r));
    assertEquals(0, agg.reports());
  }

  /**
   * Y − Σ round(q(x_i)) is the sum of m independent noises: over the d·t entries,
   * Σ(·)²/(m σ²) ~ χ²_{dt}; rejected at tail 10⁻⁷ each side, and halved or missing noise fails.
   */
  @Test
  void sum_isTheSketchOfAtAPlusNoiseOfVarianceMSigmaSquared() {
    int d = 24;
    int t = 24;
    int m = 300;
    LocalPcaProtocol p = LocalRandomizerTest.protocol(d, t, 1, 1);
    LocalPcaAggregate agg = new LocalPcaAggregate(p);
    double gamma = p.noise().grid().gamma();
    double[] exact = new double[d * t];
    for (int i = 0; i < m; i++) {
      double[] x = LocalRandomizerTest.row(d, 1, 100 + i);
      agg.add(LocalRandomizerTest.seeded(p, 1000 + i).report(x));
      double[] q = LocalRandomizer.sketch(p, LocalRandomizer.clipped(p, x));
      for (int e = 0; e < q.length; e++) {
        exact[e] += io.dplrf.sketch.noise.GridGaussian.roundToGrid(q[e], gamma);
      }
    }
    assertEquals(m, agg.reports());
    Dense y = agg.sum();
    double var = m * p.noise().sigma() * p.noise().sigma();
    double ss = 0;
    for (int e = 0; e < exact.length; e++) {
      double z = y.data()[e] - exact[e];
      ss += z * z / var;
    }
    int dof = d * t;
    assertTrue(LocalRandomizerTest.accepts(ss, dof), "chi2 " + ss + " for " + dof + " dof (test keys 1000.." + (1000 + m) + ")");
    assertTrue(!LocalRandomizerTest.accepts(ss / 4, dof) && !LocalRandomizerTest.accepts(0, dof));
  }
}
