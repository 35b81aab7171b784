package io.dplrf.sketch.factorization;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class BltStreamTest {
  private static final double U = 0x1p-53;
  private static final long SEED = 20240425L;

  @Test
  void decodedEncodedStream_isPrefixSumsPlusDecodedNoise() {
    int epochs = 300;
    int width = 7;
    for (int d : new int[] {1, 3, 5}) {
      BltParameters p = BltOptimizer.optimize(epochs, d);
      ToeplitzFactorization f = ToeplitzFactorization.blt(p);
      double[] c = f.encoderCoefficients(epochs);
      double[] b = f.decoderCoefficients(epochs);
      Random random = new Random(SEED + d);
      double[][] x = new double[epochs][width];
      double[][] z = new double[epochs][width];
      for (int t = 0; t < epochs; t++) {
        for (int k = 0; k < width; k++) {
          x[t][k] = random.nextGaussian();
          z[t][k] = 3 * random.nextGaussian();
        }
      }
      BltEncoder encoder = new BltEncoder(p, BltEncoder.newBuffers(p, width));
      double[] release = new double[width];
      BltDecoder decoder = new BltDecoder(p, BltEncoder.newBuffers(p, width), release);
      double[] y = new double[width];
      double maxX = 0;
      double maxZ = 0;
      double sumC = 0;
      for (double ck : c) {
        sumC += ck;
      }
      for (int t = 0; t < epochs; t++) {
        encoder.step(x[t], y);
        for (int k = 0; k < width; k++) {
          // (Cx)_t from the dense definition.
          double cx = 0;
          for (int tau = 0; tau <= t; tau++) {
            cx += c[t - tau] * x[tau][k];
          }
          assertEquals(cx, y[k], (d + 2) * (t + 1) * U * sumC * 4, "Cx t=" + t);
          y[k] += z[t][k];
          maxX = Math.max(maxX, Math.abs(x[t][k]));
          maxZ = Math.max(maxZ, Math.abs(z[t][k]));
        }
        decoder.step(y);
        // Forward error: every term of either recursion is at most M = C(1)·max|x| + max|z|
        // (S_i ≤ max|x|/(1 − θ_i), Σ ω_i/(1 − θ_i) = C(1) − 1, and likewise for the decoder with
        // v ≤ 2·max|ŷ|); each step rounds by ≤ (d + 2)u·2M, C⁻¹ carries an error to later steps
        // with ℓ1 gain < 2, and the running sum adds up t + 1 of them; the dense reference
        // rounds by less. Tolerance: 8(d + 2)(t + 1)·u·C(1)·M.
        double m = sumC * maxX + maxZ;
        double tolerance = 8 * (d + 2) * (t + 1) * U * sumC * m;
        for (int k = 0; k < width; k++) {
          double ax = 0;
          double bz = 0;
          for (int tau = 0; tau <= t; tau++) {
            ax += x[tau][k];
            bz += b[t - tau] * z[tau][k];
          }
          assertEquals(ax + bz, release[k], tolerance, "d=" + d + " t=" + t + " k=" + k);
        }
      }
    }
  }

  @Test
  void withoutNoise_releasesAreExactPrefixSums() {
    BltParameters p = BltOptimizer.optimize(64, 4);
    double[] release = new double[1];
    BltEncoder encoder = new BltEncoder(p, BltEncoder.newBuffers(p, 1));
    BltDecoder decoder = new BltDecoder(p, BltEncoder.newBuffers(p, 1), release);
    double[] y = new double[1];
    for (int t = 1; t <= 64; t++) {
      encoder.step(new double[] {1}, y);
      decoder.step(y);
      // Integers below 2^53 with the bound above: t·8(d + 2)u·C(1)² ≪ 0.5.
      assertEquals(t, release[0], 1e-11, "t=" + t);
    }
  }

  @Test
  void chunks_inAnyOrder_equalTheWholeVector_bitForBit() {
    BltParameters p = BltOptimizer.optimize(1 << 16, 4);
    int width = 1000;
    Random random = new Random(SEED);
    double[][] whole = BltEncoder.newBuffers(p, width);
    double[][] chunked = BltEncoder.newBuffers(p, width);
    BltEncoder a = new BltEncoder(p, whole);
    BltEncoder b = new BltEncoder(p, chunked);
    double[] releaseA = new double[width];
    double[] releaseB = new double[width];
    BltDecoder da = new BltDecoder(p, BltEncoder.newBuffers(p, width), releaseA);
    BltDecoder db = new BltDecoder(p, BltEncoder.newBuffers(p, width), releaseB);
    double[] outA = new double[width];
    for (int t = 0; t < 20; t++) {
      double[] x = new double[width];
      for (int k = 0; k < width; k++) {
        x[k] = random.nextGaussian();
      }
      a.step(x, outA);
      double[] inPlace = x.clone();
      // Chunks [600, 1000), [0, 250), [250, 600), encoding in place (out = x).
      b.step(inPlace, inPlace, 600, 1000);
      b.step(inPlace, inPlace, 0, 250);
      b.step(inPlace, inPlace, 250, 600);
      assertArrayEquals(outA, inPlace);
      da.step(outA);
      db.step(inPlace, 500, 1000);
      db.step(inPlace, 0, 500);
      assertArrayEquals(releaseA, releaseB);
    }
    for (int i = 0; i < p.buffers(); i++) {
      assertArrayEquals(whole[i], chunked[i]);
    }
  }

  @Test
  void buffersOfTheWrongShape_areRejected() {
    BltParameters p = new BltParameters(new double[] {0.9, 0.5}, new double[] {0.1, 0.2});
    assertEquals("buffers.length must be the number of buffers 2. Provided value: 1",
        assertThrows(IllegalArgumentException.class,
            () -> new BltEncoder(p, new double[1][4])).getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> new BltEncoder(p, new double[][] {new double[4], new double[3]}));
    assertThrows(IllegalArgumentException.class,
        () -> new BltDecoder(p, new double[2][4], new double[3]));
    BltEncoder encoder = new BltEncoder(p, new double[2][4]);
    assertThrows(IllegalArgumentException.class,
        () -> encoder.step(new double[4], new double[4], 2, 5));
    assertThrows(IllegalArgumentException.class,
        () -> encoder.step(new double[3], new double[4]));
    assertTrue(encoder.length() == 4);
  }
}
