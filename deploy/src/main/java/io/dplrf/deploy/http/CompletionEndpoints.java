package io.dplrf.deploy.http;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;

/**
 * What mode completion (docs/completion-service.md) hands the HTTP layer: the public model, the
 * per-user predictions behind a per-user token, and the operator's actions. Implemented in {@code
 * deploy.serve}; this package only routes, authenticates and renders. Thread-safe.
 *
 * <p><b>Joint DP.</b> Only {@link #model} and {@link #statusFields} are public. {@link #predictions}
 * answers for one user from that user's own ratings and the public model, and is served only to
 * a holder of that user's token; no endpoint lists any other user's ratings or predictions.
 */
public interface CompletionEndpoints {

  /** The latest model's public part (item factors, diagnostics); empty before the first run. */
  Optional<Map<String, Object>> model();

  /**
   * Fields of {@code /v1/status} under {@code "completion"} (public): budget, schedule, the
   * latest model. Never a fit's duration or iteration progress: fit time grows with the stored
   * ratings, which one user changes.
   */
  Map<String, Object> statusFields();

  /** {@code GET /admin/completion} (operator only): iteration progress and fit durations. */
  Map<String, Object> operatorStatus();

  /** m: user ids are in [0, users). */
  int users();

  /** n: item ids are in [0, items). */
  int items();

  /** Whether {@code token} is {@code user}'s token, compared in constant time. */
  boolean tokenValid(int user, String token);

  /**
   * User {@code user}'s top-{@code n} items she has not rated, with scores, from her stored
   * ratings and the latest public model; the caller has checked her token.
   *
   * @throws Refused 404 before the first model
   */
  Map<String, Object> predictions(int user, int n) throws IOException;

  /** Operator: {@code user}'s token (derived, not stored: the same on every call). */
  String issueToken(int user);

  /**
   * Operator: starts a fit now (in the background); returns what was started.
   *
   * @throws Refused 409 when a run is in progress or the budget's R runs are spent
   */
  Map<String, Object> run();

  /** A request the service refuses, with the HTTP status to answer. */
  final class Refused extends RuntimeException {
    private final int status;

    public Refused(int status, String message) {
      super(message, null, false, false);
      this.status = status;
    }

    public int status() {
      return status;
    }
  }
}
