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
    assertEquals("epsilon: 1.0 in the state directory, 2.0 configured; epochs: 64 in the"
        + " state directory, 32 configured",
        SettingsDiff.of(stored, new Stream("priv2-sparse", new Privacy(2, 1e-6), 1, 32)));
  }

  record Sizes(int m, int n, int k, int t, int v) {}

  record Tree(io.dplrf.sketch.params.Mechanism mechanism, Sizes sizes, Privacy privacy) {}

  @Test
  void of_namesTheSettingsAsTheUserTypesThem_notTheRecordComponents() {
    Tree stored = new Tree(io.dplrf.sketch.params.Mechanism.PRIV2_SPARSE,
        new Sizes(200, 100, 2, 20, 80), new Privacy(1, 1e-6));
    Tree configured = new Tree(io.dplrf.sketch.params.Mechanism.PRIV2,
        new Sizes(200, 100, 3, 30, 120), new Privacy(1, 1e-5));
    assertEquals("mechanism: priv2-sparse in the state directory, priv2 configured; rank: 2 in"
        + " the state directory, 3 configured; sketch-cols: 20 in the state directory, 30"
        + " configured; sketch-rows: 80 in the state directory, 120 configured; delta: 1.0E-6 in"
        + " the state directory, 1.0E-5 configured", SettingsDiff.of(stored, configured));
  }
}
