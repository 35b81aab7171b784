package io.dplrf.sketch.noise;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.stats.ChiSquare;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ExactBernoulliTest {
  private static final long SEED = 99L;

  /**
   * Frequency of Bernoulli(exp(−n/d)) over 200,000 trials within the binomial normal-approximation
   * bound at two-sided false alarm 1e-6; covers γ < 1, γ = 1, γ > 1 and a huge denominator.
   */
  @ParameterizedTest
  @CsvSource({"0,1", "1,3", "1,1", "5,2", "7,1", "4611686018427387903,4611686018427387904",
      "3,4611686018427387904"})
  void expMinus_frequencyMatchesExp_falseAlarm1e6(long n, long d) {
    String label = "bern-" + n + "/" + d;
    RandomBits bits = KeyStream.of(SecretKey.forTesting(SEED), label).bits();
    int trials = 200_000;
    int hits = 0;
    for (int i = 0; i < trials; i++) {
      if (ExactBernoulli.expMinus(bits, 0, n, d)) {
        hits++;
      }
    }
    double p = Math.exp(-(double) n / d);
    double tol = ChiSquare.Z_1E6_TWO_SIDED * Math.sqrt(p * (1 - p) / trials) + 1e-12;
    assertTrue(Math.abs((double) hits / trials - p) <= tol,
        "freq " + (double) hits / trials + " vs " + p + " seed " + SEED + " label " + label);
  }

  @Test
  void expMinus_128BitNumerator_terminatesAndIsAlmostAlwaysFalse() {
    RandomBits bits = KeyStream.of(SecretKey.forTesting(SEED), "bern-128").bits();
    for (int i = 0; i < 1000; i++) {
      // γ ≥ 2^64/3: success probability e^{-γ} is 0 for all practical purposes.
      assertFalse(ExactBernoulli.expMinus(bits, 1, 0, 3));
    }
  }

  @Test
  void expansionOfExpMinusOne_matchesDoubleAndIsPrefixConsistent() {
    long[] four = ExactBernoulli.expansionOfExpMinusOne(4);
    long[] eight = ExactBernoulli.expansionOfExpMinusOne(8);
    for (int i = 0; i < 4; i++) {
      org.junit.jupiter.api.Assertions.assertEquals(four[i], eight[i]);
    }
    // Independent reference: floor(2^128 · Σ_{k<80} (−1)^k/k!) with Python's Fraction.
    org.junit.jupiter.api.Assertions.assertEquals(0x5e2d58d8b3bcdf1aL, four[0]);
    org.junit.jupiter.api.Assertions.assertEquals(0xbadec7829054f90dL, four[1]);
  }

  @Test
  void expMinusOne_lazyComparison_matchesAlgorithm1WithGammaOne_falseAlarm1e6() {
    RandomBits bits = KeyStream.of(SecretKey.forTesting(SEED), "bern-e1").bits();
    int trials = 400_000;
    int lazy = 0;
    int alg1 = 0;
    for (int i = 0; i < trials; i++) {
      lazy += ExactBernoulli.expMinusOne(bits) ? 1 : 0;
      alg1 += ExactBernoulli.expMinusAtMostOne(bits, 1, 1) ? 1 : 0;
    }
    double p = Math.exp(-1);
    double tol = ChiSquare.Z_1E6_TWO_SIDED * Math.sqrt(p * (1 - p) / trials);
    assertTrue(Math.abs((double) lazy / trials - p) <= tol, "lazy " + lazy + " seed " + SEED);
    assertTrue(Math.abs((double) alg1 / trials - p) <= tol, "alg1 " + alg1 + " seed " + SEED);
  }
}
