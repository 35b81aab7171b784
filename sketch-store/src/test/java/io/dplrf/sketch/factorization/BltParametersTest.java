package io.dplrf.sketch.factorization;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class BltParametersTest {
  private static String rejection(double[] theta, double[] omega) {
    return assertThrows(IllegalArgumentException.class, () -> new BltParameters(theta, omega))
        .getMessage();
  }

  @Test
  void outsideTheProvedClass_isRejectedWithHouseMessage() {
    assertEquals("theta[0] must be in the open interval (0, 1). Provided value: 1.0",
        rejection(new double[] {1}, new double[] {0.5}));
    assertEquals("theta[1] must be in the open interval (0, 1). Provided value: 0.0",
        rejection(new double[] {0.9, 0}, new double[] {0.1, 0.1}));
    assertEquals("theta[0] must be in the open interval (0, 1). Provided value: NaN",
        rejection(new double[] {Double.NaN}, new double[] {0.1}));
    assertEquals("theta[1] must be < theta[0]. Provided value: 0.9",
        rejection(new double[] {0.9, 0.9}, new double[] {0.1, 0.1}));
    assertEquals("omega[0] must be > 0 and < infinity. Provided value: -0.1",
        rejection(new double[] {0.9}, new double[] {-0.1}));
    assertEquals("omega[0] must be > 0 and < infinity. Provided value: Infinity",
        rejection(new double[] {0.9}, new double[] {Double.POSITIVE_INFINITY}));
    // Σ ω/θ = 0.5/0.9 + 0.3/0.6 ≥ 1: C⁻¹ would have a decay ≤ 0.
    assertEquals("sum of omega[i]/theta[i] must be < 1. Provided value: 1.0555555555555556",
        rejection(new double[] {0.9, 0.6}, new double[] {0.5, 0.3}));
    assertEquals("omega.length must be theta.length = 2. Provided value: 1",
        rejection(new double[] {0.9, 0.5}, new double[] {0.1}));
    assertEquals("theta.length must be in [1, 8]. Provided value: 0",
        rejection(new double[0], new double[0]));
    assertEquals("theta must be non-null. Provided value: null", rejection(null, new double[0]));
  }

  @Test
  void arrays_areCopiedInAndOut() {
    double[] theta = {0.9, 0.5};
    double[] omega = {0.1, 0.2};
    BltParameters p = new BltParameters(theta, omega);
    theta[0] = 0.1;
    p.omega()[1] = 7;
    assertEquals(0.9, p.theta()[0]);
    assertEquals(0.2, p.omega()[1]);
    assertEquals(2, p.buffers());
  }

  @Test
  void equality_isByValue() {
    BltParameters a = new BltParameters(new double[] {0.9, 0.5}, new double[] {0.1, 0.2});
    BltParameters b = new BltParameters(new double[] {0.9, 0.5}, new double[] {0.1, 0.2});
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
    assertNotEquals(a, new BltParameters(new double[] {0.9, 0.5}, new double[] {0.1, 0.3}));
    assertEquals("BltParameters[theta=[0.9, 0.5], omega=[0.1, 0.2]]", a.toString());
  }
}
