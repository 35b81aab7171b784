package io.dplrf.deploy.http;

import java.util.List;
import java.util.Objects;

/**
 * What {@code /health} reports: "ok", or "degraded" with the reasons — the process serves (its
 * health, metrics and the releases it has), but something stops part of it, such as ingest waiting
 * for a state directory that refuses writes, or a damaged state file. Public, like everything on
 * the public port: a reason says what is wrong and what is affected, never data.
 *
 * @param reasons empty when healthy
 */
public record Health(List<Reason> reasons) {
  /** Nothing wrong. */
  public static final Health OK = new Health(List.of());

  /**
   * One thing wrong.
   *
   * @param code a fixed short name, e.g. {@code state-write-refused}, {@code state-file-damaged}
   * @param message a sentence for people: what is wrong, what it stops, what resolves it
   */
  public record Reason(String code, String message) {
    public Reason {
      Objects.requireNonNull(code, "code");
      Objects.requireNonNull(message, "message");
    }
  }

  public Health {
    reasons = List.copyOf(reasons);
  }

  /** "ok" or "degraded". */
  public String status() {
    return reasons.isEmpty() ? "ok" : "degraded";
  }

  /** This health and {@code other}'s reasons, in order. */
  public Health and(Health other) {
    if (other.reasons.isEmpty()) {
      return this;
    }
    if (reasons.isEmpty()) {
      return other;
    }
    List<Reason> all = new java.util.ArrayList<>(reasons);
    all.addAll(other.reasons);
    return new Health(all);
  }
}
