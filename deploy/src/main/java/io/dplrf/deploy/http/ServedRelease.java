package io.dplrf.deploy.http;

import io.dplrf.deploy.io.Json;
import io.dplrf.release.Factorization;
import io.dplrf.release.UtilityReport;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One served release: the factorization of the epochs {@code [from, to]} (a prefix release has
 * {@code from = 1}), its utility report, when it was made, and JSON-ready metadata (mechanism,
 * privacy parameters, noise scales...) echoed in the release document. Immutable and validated:
 * every entry of U and V is finite, so it can always be written as JSON.
 *
 * @param from first epoch covered, ≥ 1
 * @param to last epoch covered, ≥ from
 * @param metadata JSON-ready values (see {@link Json}); copied
 */
public record ServedRelease(int from, int to, Factorization factorization, UtilityReport utility,
    Instant releasedAt, Map<String, Object> metadata) {

  public ServedRelease {
    Objects.requireNonNull(factorization, "factorization");
    Objects.requireNonNull(utility, "utility");
    Objects.requireNonNull(releasedAt, "releasedAt");
    if (from < 1) {
      throw new IllegalArgumentException("from must be >= 1. Provided value: " + from);
    }
    if (to < from) {
      throw new IllegalArgumentException("to must be >= from = " + from + ". Provided value: " + to);
    }
    checkFinite("U", factorization.u().data());
    checkFinite("V", factorization.v().data());
    metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    Json.write(metadata); // rejects values that are not JSON, now rather than mid-response
  }

  /** A prefix release after epoch {@code epoch}, with no metadata. */
  public static ServedRelease prefix(int epoch, Factorization f, UtilityReport utility, Instant at) {
    return new ServedRelease(1, epoch, f, utility, at, Map.of());
  }

  /** The last epoch covered. */
  public int epoch() {
    return to;
  }

  private static void checkFinite(String name, double[] data) {
    for (double x : data) {
      if (!Double.isFinite(x)) {
        throw new IllegalArgumentException(name + " entries must be finite. Provided value: " + x);
      }
    }
  }
}
