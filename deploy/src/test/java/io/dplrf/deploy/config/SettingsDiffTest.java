package io.dplrf.deploy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SettingsDiffTest {
  record Privacy(double epsilon, double delta) {}

  record Stream(String mechanism, Privacy privacy, double clip, int epochs) {}

  @Test
  void of_namesOnlyTheComponentsThatDiffer_nestedByDottedPath() {
    Stream stored = new Stream("priv2-sparse", new Privacy(1, 1e-6), 1, 64);
    assertEquals("", SettingsDiff.of(stored, new Stream("priv2-sparse", new Privacy(1, 1e-6), 1,
        64)));
    assertEquals("privacy.epsilon: 1.0 in the state directory, 2.0 configured; epochs: 64 in the"
        + " state directory, 32 configured",
        SettingsDiff.of(stored, new Stream("priv2-sparse", new Privacy(2, 1e-6), 1, 32)));
  }
}
