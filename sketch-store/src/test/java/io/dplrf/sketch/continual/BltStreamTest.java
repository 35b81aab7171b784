package io.dplrf.sketch.continual;

import static io.dplrf.sketch.continual.BltFixtures.KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.factorization.BltEncoder;
import io.dplrf.sketch.factorization.BltParameters;
import io.dplrf.sketch.factorization.ToeplitzFactorization;
import io.dplrf.sketch.lra.GaussianSketchNoise;
import io.dplrf.sketch.lra.NoisyLinearSketch;
import io.dplrf.sketch.noise.GaussianSampler;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.SketchSizes;
import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.stats.ChiSquare;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a BLT stream releases (docs/privacy/blt-release.md §1, §3, §7): every prefix is the exact
 * prefix plus the decoder applied to the drawn rounding and noise, the noise has the variance the
 * plan says, and no noise is drawn twice. The noise is regenerated here from the labels the
 * specification gives, so a stream that drew other noise, or the same noise for two epochs, parts
 * or chunks, fails.
 */
class BltStreamTest {
  /** 80,000 entries per part: two noise chunks each, drawn on every core. */
  static final SketchSizes WIDE = new SketchSizes(20_000, 20_000, 1, 4, 4);
  /** Two buffers (BltOptimizer.optimize(16)). */
  static final int T = 16;
  static final int PER_EPOCH = 2_000;
  private static final double U = 0x1p-53;
  private static final String[] PARTS = {"N1", "N2"};

  /** One stream run to epoch T and its independent reference, all in the accumulator's layout. */
  record Run(BltStream stream, double[][][] exact, double[][][] encoded, double[][][] noise,
      double[][][] released, double[][][] prefix, double[][][] yHat) {}

  /**
   * Runs a stream of {@code mech} for T epochs and computes, per epoch t and part: x_t (the
   * exact epoch sketch), c_t (x encoded by {@link BltEncoder}, checked against the dense sum
   * Σ_τ c_{t−τ}x_τ), γN_t regenerated from the key stream labelled
   * {@code <instance>/blt/<t>/<part>/chunk/<c>} with the blocked sampler, the release R_t, the
   * exact prefix P_t, and ŷ_t as the stream drew it (its test seam).
   */
  static Run run(Mechanism mech, String instance) {
    BltStream s = BltFixtures.inMemory(BltFixtures.config(mech, WIDE, T), instance);
    double[][][] yHat = new double[T + 1][][];
    s.encodedTap = (t, y) -> yHat[t] = new double[][] {y[0].clone(), y[1].clone()};
    BltPlan plan = s.plan();
    BltParameters p = plan.parameters();
    double[] c = plan.factorization().encoderCoefficients(T);
    double[][][] exact = new double[T + 1][][];
    double[][][] encoded = new double[T + 1][][];
    double[][][] noise = new double[T + 1][][];
    double[][][] released = new double[T + 1][][];
    double[][][] prefix = new double[T + 1][][];
    int[] len = {WIDE.m() * WIDE.t(), WIDE.n() * WIDE.v()};
    BltEncoder[] enc = new BltEncoder[2];
    for (int part = 0; part < 2; part++) {
      enc[part] = new BltEncoder(p, BltEncoder.newBuffers(p, len[part]));
    }
    prefix[0] = new double[][] {new double[len[0]], new double[len[1]]};
    GaussianSketchNoise[] scale = {plan.yNoise(), plan.zNoise()};
    double sumC = 0;
    for (double ck : c) {
      sumC += ck;
    }
    for (int t = 1; t <= T; t++) {
      BltFixtures.feed(s, t, 0, PER_EPOCH);
      BltFixtures.closeAndCommit(s);
      exact[t] = BltFixtures.exactEpoch(s, t, PER_EPOCH);
      encoded[t] = new double[2][];
      noise[t] = new double[2][];
      prefix[t] = new double[2][];
      for (int part = 0; part < 2; part++) {
        double[] x = exact[t][part];
        double[] ct = new double[len[part]];
        enc[part].step(x, ct);
        for (int k = 0; k < len[part]; k++) {
          double dense = 0;
          double maxX = 0;
          for (int tau = 1; tau <= t; tau++) {
            dense += c[t - tau] * exact[tau][part][k];
            maxX = Math.max(maxX, Math.abs(exact[tau][part][k]));
          }
          // The encoder against the definition (blt-factorization.md §2's streaming bound).
          assertEquals(dense, ct[k], 4 * (p.buffers() + 2) * (t + 1) * U * sumC * maxX,
              "c_t, t = " + t + ", entry " + k);
        }
        encoded[t][part] = ct;
        double[] gn = new double[len[part]];
        GridGaussian grid = scale[part].grid();
        int chunk = NoisyLinearSketch.NOISE_CHUNK;
        for (int from = 0, ch = 0; from < len[part]; from += chunk, ch++) {
          grid.addTo(GaussianSampler.BLOCKED, KeyStream.of(KEY,
              instance + "/blt/" + t + "/" + PARTS[part] + "/chunk/" + ch).bits(), gn, from,
              Math.min(chunk, len[part] - from));
        }
        noise[t][part] = gn;
        prefix[t][part] = prefix[t - 1][part].clone();
        for (int k = 0; k < len[part]; k++) {
          prefix[t][part][k] += x[k];
        }
      }
      released[t] = BltFixtures.accumulatorLayout(s.releasePrefix(t));
    }
    return new Run(s, exact, encoded, noise, released, prefix, yHat);
  }

  /**
   * For a test key, R_t = P_t + (B(e + γN))_t for every t ≤ T and every entry, with e =
   * round_γ(c_t) − c_t and N_t the noise of the specification's labels, B applied densely from
   * the decoder's coefficients. The tolerance is the floating-point bound of the two recursions
   * (blt-factorization.md §2, 8(d + 2)(t + 1)·u·C(1)·(C(1)·max|x| + max|z|)); it is below γ/64,
   * so a stream that skipped the rounding, and far below σ, so one with any other noise, fails.
   */
  @ParameterizedTest
  @EnumSource(value = Mechanism.class, names = {"PRIV2_SPARSE", "PRIV2"})
  void everyPrefix_isTheExactPrefixPlusTheDecodedRoundingAndNoise(Mechanism mech) {
    String instance = "decomposition/" + mech.cliName();
    Run r = run(mech, instance);
    BltPlan plan = r.stream().plan();
    ToeplitzFactorization f = plan.factorization();
    double[] b = f.decoderCoefficients(T);
    double[] c = f.encoderCoefficients(T);
    double sumC = 0;
    for (double ck : c) {
      sumC += ck;
    }
    int d = plan.parameters().buffers();
    GaussianSketchNoise[] scale = {plan.yNoise(), plan.zNoise()};
    for (int part = 0; part < 2; part++) {
      double gamma = scale[part].grid().gamma();
      double maxX = 0;
      double maxZ = 0;
      double[][] z = new double[T + 1][];
      for (int t = 1; t <= T; t++) {
        double[] ct = r.encoded()[t][part];
        z[t] = new double[ct.length];
        for (int k = 0; k < ct.length; k++) {
          double e = GridGaussian.roundToGrid(ct[k], gamma) - ct[k];
          assertTrue(Math.abs(e) <= gamma / 2, "rounding within half a grid step");
          z[t][k] = e + r.noise()[t][part][k];
          maxX = Math.max(maxX, Math.abs(r.exact()[t][part][k]));
          maxZ = Math.max(maxZ, Math.abs(z[t][k]));
        }
      }
      for (int t = 1; t <= T; t++) {
        double tolerance = 8 * (d + 2) * (t + 1) * U * sumC * (sumC * maxX + maxZ);
        assertTrue(tolerance < gamma / 64, "the check resolves the grid: " + tolerance);
        double[] got = r.released()[t][part];
        for (int k = 0; k < got.length; k++) {
          double bz = 0;
          for (int tau = 1; tau <= t; tau++) {
            bz += b[t - tau] * z[tau][k];
          }
          double want = r.prefix()[t][part][k] + bz;
          if (Math.abs(want - got[k]) > tolerance) {
            assertEquals(want, got[k], tolerance, PARTS[part] + " of R_" + t + ", entry " + k
                + " (key seed 53, " + mech.cliName() + ")");
          }
        }
      }
    }
  }

  /**
   * The prefix noise R_t − P_t has per-entry variance σ²·Σ_{k<t} b_k², σ = the plan's σ_Y or σ_Z,
   * b from the decoder's coefficients (not the closed form): for each t, Σ over the 160,000
   * entries of (R_t − P_t)²/(σ²Σb²) is χ² with 160,000 degrees of freedom (entries are
   * independent; the decoded rounding is below 2⁻³¹σ·t ≤ 2⁻²⁷σ), checked two-sided at
   * 1e-6/(2T) per epoch (Bonferroni over epochs and tails: false alarm ≤ 1e-6, a threshold 5.5
   * standard deviations out); a 3% error in the variance moves the statistic by 8.5. And σ itself
   * is the calibration of blt-release.md §3 from C's column norm, recomputed here from the
   * encoder's coefficients: √2·(C·sens(T)·b + γ√(kT))/μ ≤ σ < that·(1 + 2⁻²⁹).
   */
  @Test
  void prefixNoise_hasTheVarianceOfTheDecodedNoise_withSigmaFromTheEncodersColumnNorm() {
    Run r = run(Mechanism.PRIV2_SPARSE, "variance");
    BltPlan plan = r.stream().plan();
    ToeplitzFactorization f = plan.factorization();
    // c_0..c_{T−1}: the encoder's response to a unit impulse in epoch 1 (one scalar stream).
    BltEncoder impulse = new BltEncoder(plan.parameters(),
        BltEncoder.newBuffers(plan.parameters(), 1));
    double[] coefficients = f.encoderCoefficients(T);
    double sens2 = 0;
    for (int t = 0; t < T; t++) {
      double[] out = new double[1];
      impulse.step(new double[] {t == 0 ? 1 : 0}, out);
      assertEquals(coefficients[t], out[0], 1e-14 * Math.max(1, coefficients[t]), "c_" + t);
      sens2 += out[0] * out[0];
    }
    assertEquals(Math.sqrt(sens2), plan.sensitivity(), 1e-13 * plan.sensitivity());
    double mu = io.dplrf.sketch.calibration.AnalyticGaussian.mu(
        BltFixtures.PRIVACY.epsilon(), BltFixtures.PRIVACY.delta());
    GaussianSketchNoise[] scale = {plan.yNoise(), plan.zNoise()};
    long[] k = {(long) WIDE.m() * WIDE.t(), (long) WIDE.n() * WIDE.v()};
    for (int part = 0; part < 2; part++) {
      assertEquals(k[part] * T, scale[part].changedCoordinates(),
          "the rounding is charged over k·T coordinates");
      double gamma = scale[part].grid().gamma();
      double clip = r.stream().config().clip(); // b_Φ = b_S = 1: sparse sign embeddings
      double delta = clip * Math.sqrt(sens2) + gamma * Math.sqrt((double) k[part] * T);
      double want = Math.sqrt(2) * delta / mu;
      double sigma = scale[part].sigma();
      assertTrue(sigma >= want * (1 - 1e-12) && sigma < want * (1 + 0x1p-29),
          PARTS[part] + ": sigma " + sigma + " against sqrt(2)(C sens b + slack)/mu = " + want);
    }
    double[] b = f.decoderCoefficients(T);
    double alpha = 1e-6 / (2 * T);
    double prefixVariance = 0;
    for (int t = 1; t <= T; t++) {
      prefixVariance += b[t - 1] * b[t - 1];
      double q = 0;
      int df = 0;
      for (int part = 0; part < 2; part++) {
        double var = scale[part].sigma() * scale[part].sigma() * prefixVariance;
        double[] got = r.released()[t][part];
        double[] exact = r.prefix()[t][part];
        for (int e = 0; e < got.length; e++) {
          double dev = got[e] - exact[e];
          q += dev * dev / var;
        }
        df += got.length;
      }
      double upper = ChiSquare.upperTail(q, df);
      assertTrue(upper > alpha / 2 && 1 - upper > alpha / 2, "epoch " + t + ": chi2 " + q
          + " on " + df + " degrees of freedom, upper tail " + upper + " (key seed 53)");
    }
  }

  /**
   * No noise is drawn twice: the noise recovered from the stream's own output, γN_t =
   * ŷ_t − round(c_t) with ŷ_t = C·(R_t − R_{t−1}), equals the regenerated one, and no two
   * (epoch, part, chunk) share a single value at the same position (with s ≥ 2^30 a chance
   * agreement has probability below 10⁻⁹ per position), which a label reused across epochs,
   * parts or chunks would make them do everywhere. Another instance's noise differs too.
   */
  @Test
  void noise_differsAcrossEpochsPartsChunksAndInstances() {
    Run r = run(Mechanism.PRIV2_SPARSE, "reuse");
    BltPlan plan = r.stream().plan();
    BltParameters p = plan.parameters();
    GaussianSketchNoise[] scale = {plan.yNoise(), plan.zNoise()};
    int chunk = NoisyLinearSketch.NOISE_CHUNK;
    Map<String, long[]> drawn = new HashMap<>();
    long[][][] recovered = new long[T + 1][2][];
    for (int part = 0; part < 2; part++) {
      double gamma = scale[part].grid().gamma();
      int len = r.released()[1][part].length;
      BltEncoder enc = new BltEncoder(p, BltEncoder.newBuffers(p, len));
      double[] previous = new double[len];
      for (int t = 1; t <= T; t++) {
        double[] v = new double[len];
        double[] rt = r.released()[t][part];
        for (int k = 0; k < len; k++) {
          v[k] = rt[k] - previous[k];
        }
        previous = rt;
        double[] yHat = new double[len];
        enc.step(v, yHat);
        long[] n = new long[len];
        for (int k = 0; k < len; k++) {
          double gn = yHat[k] - GridGaussian.roundToGrid(r.encoded()[t][part][k], gamma);
          n[k] = Math.round(gn / gamma);
        }
        recovered[t][part] = n;
        for (int from = 0, c = 0; from < len; from += chunk, c++) {
          drawn.put(t + "/" + PARTS[part] + "/" + c,
              java.util.Arrays.copyOfRange(n, from, Math.min(len, from + chunk)));
        }
      }
    }
    Run other = run(Mechanism.PRIV2_SPARSE, "reuse-other");
    long[] otherFirst = new long[chunk];
    for (int k = 0; k < chunk; k++) {
      otherFirst[k] = Math.round(other.noise()[1][0][k] / scale[0].grid().gamma());
    }
    drawn.put("other instance", otherFirst);
    String[] names = drawn.keySet().toArray(new String[0]);
    assertEquals(2 * T * 2 + 1, names.length, "two chunks per part and epoch");
    for (int a = 0; a < names.length; a++) {
      for (int c = a + 1; c < names.length; c++) {
        long[] x = drawn.get(names[a]);
        long[] y = drawn.get(names[c]);
        int same = 0;
        for (int k = 0; k < Math.min(x.length, y.length); k++) {
          same += x[k] == y[k] ? 1 : 0;
        }
        assertEquals(0, same, names[a] + " and " + names[c] + " share noise values");
        // Independent draws: the sample correlation of L pairs is ≈ N(0, 1/L); |z| > 6 has
        // probability 2·10⁻⁹, so over the 8,256 pairs a false alarm below 2·10⁻⁵.
        int len = Math.min(x.length, y.length);
        double z = correlation(x, y, len) * Math.sqrt(len);
        assertTrue(Math.abs(z) < 6, names[a] + " and " + names[c] + " are correlated: z = " + z);
      }
    }
    for (int t = 1; t <= T; t++) {
      for (int part = 0; part < 2; part++) {
        double gamma = scale[part].grid().gamma();
        for (int k = 0; k < recovered[t][part].length; k++) {
          assertEquals(r.noise()[t][part][k], recovered[t][part][k] * gamma, gamma / 4,
              "noise recovered from the releases against the labelled stream's, epoch " + t);
        }
      }
    }
  }

  private static double correlation(long[] x, long[] y, int len) {
    double mx = 0;
    double my = 0;
    for (int k = 0; k < len; k++) {
      mx += x[k];
      my += y[k];
    }
    mx /= len;
    my /= len;
    double sxy = 0;
    double sxx = 0;
    double syy = 0;
    for (int k = 0; k < len; k++) {
      double a = x[k] - mx;
      double b = y[k] - my;
      sxy += a * b;
      sxx += a * a;
      syy += b * b;
    }
    return sxy / Math.sqrt(sxx * syy);
  }

  /**
   * What is released per epoch, ŷ_t, is on the noise grid: ŷ_t/γ is an exact integer (so it
   * carries no fractional part of c_t), and ŷ_t − γN_t, with N_t from the specification's labels,
   * is within half a grid step of the encoded c_t (plus the floating-point bound of the encoder,
   * which the test recomputes from its own x_t).
   */
  @Test
  void encodedStream_isOnTheGrid_andIsTheRoundedEncodingPlusTheLabelledNoise() {
    Run r = run(Mechanism.PRIV2_SPARSE, "grid");
    BltPlan plan = r.stream().plan();
    GaussianSketchNoise[] scale = {plan.yNoise(), plan.zNoise()};
    for (int part = 0; part < 2; part++) {
      double gamma = scale[part].grid().gamma();
      for (int t = 1; t <= T; t++) {
        double[] y = r.yHat()[t][part];
        double[] c = r.encoded()[t][part];
        for (int k = 0; k < y.length; k++) {
          double q = y[k] / gamma;
          if (q != Math.rint(q)) {
            assertEquals(Math.rint(q), q, 0, PARTS[part] + " of ŷ_" + t + ", entry " + k
                + ": not an integer multiple of gamma " + gamma);
          }
          double rounding = y[k] - r.noise()[t][part][k] - c[k];
          if (!(Math.abs(rounding) <= gamma / 2 + 0x1p-40 * Math.max(1, Math.abs(c[k])))) {
            assertEquals(0, rounding, gamma / 2, PARTS[part] + " of ŷ_" + t + ", entry " + k
                + ": ŷ − γN is not the rounding of c_t");
          }
        }
      }
    }
  }

  /**
   * The noise labels {@code <instance>/blt/<t>/<part>/chunk/<c>} are injective over (instance,
   * t, part, chunk), also for instances that look like a label's prefix: read from the right, a
   * label gives back c, the part, t and the instance. A pipelined close and a restart draw the
   * same labels (BltSnapshotTest: their releases equal, bit for bit, those of a stream closed
   * with {@link BltStream#closeEpoch}, whose noise the tests above regenerate from the labels).
   */
  @Test
  void noiseLabels_areInjective() {
    String[] instances = {"a", "a/blt/1", "a/blt/1/N1/chunk/2", "a/blt/1/N1", "b/", ""};
    java.util.Set<String> labels = new java.util.HashSet<>();
    int count = 0;
    for (String instance : instances) {
      for (int t = 1; t <= 40; t++) {
        for (String part : PARTS) {
          for (int c = 0; c <= 40; c++) {
            labels.add(BltStream.noiseLabel(instance, t, part, c));
            count++;
          }
        }
      }
    }
    assertEquals(count, labels.size(), "every (instance, t, part, chunk) has its own label");
  }
}
