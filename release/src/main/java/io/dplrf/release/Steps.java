package io.dplrf.release;

import java.util.ArrayList;
import java.util.List;

/**
 * Wall-clock laps of a release's steps, for {@code dplrf bench release}. Costs one
 * {@link System#nanoTime} per step, so the production path keeps it on. Not thread-safe: one per
 * release.
 */
final class Steps {
  private final List<Priv2Release.Step> laps = new ArrayList<>();
  private long last = System.nanoTime();

  /** Ends the step running since the previous lap (or construction) and names it. */
  void lap(String name) {
    long now = System.nanoTime();
    laps.add(new Priv2Release.Step(name, (now - last) / 1e9));
    last = now;
  }

  List<Priv2Release.Step> laps() {
    return List.copyOf(laps);
  }
}
