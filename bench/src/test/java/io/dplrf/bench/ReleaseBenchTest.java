package io.dplrf.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.release.Priv2Release.Route;
import io.dplrf.sketch.params.SketchSizes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code dplrf bench release} prints and measures, at a small size (no timing asserted). */
class ReleaseBenchTest {
  @Test
  void run_smallSketches_bothRoutesTimedAndEquallyAccurate() {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    List<ReleaseBench.Result> rs = new ReleaseBench(new SketchSizes(3000, 2000, 4, 40, 120), 1,
        1e-6, 4, 1, 7).run(new PrintStream(buf, true, StandardCharsets.UTF_8));
    String out = buf.toString(StandardCharsets.UTF_8);
    assertEquals(Route.HOUSEHOLDER, rs.get(0).route());
    assertEquals(Route.GRAM, rs.get(1).route());
    assertEquals("gram", rs.get(1).yRoute(), out);
    assertEquals("gram", rs.get(1).xRoute(), out);
    assertTrue(rs.get(0).stepSeconds().containsKey("Householder Q of Y"), out);
    assertTrue(rs.get(1).stepSeconds().containsKey("Y: Gram matrix"), out);
    // Same sketches: the errors agree to rounding (the routes' release-level agreement is
    // bounded in Priv2ReleaseTest).
    double e0 = rs.get(0).error();
    assertEquals(e0, rs.get(1).error(), 1e-9 * e0, out);
    assertTrue(out.contains("householder (baseline)"), out);
    assertTrue(out.contains("gram is "), out);
  }
}
