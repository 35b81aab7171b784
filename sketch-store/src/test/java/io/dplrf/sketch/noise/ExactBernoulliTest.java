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
}
