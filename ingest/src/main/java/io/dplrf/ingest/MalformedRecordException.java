package io.dplrf.ingest;

/**
 * A record that cannot be applied: it goes to the dead-letter topic whole, and nothing of it is
 * applied. The message is the human-readable reason written in the {@code dplrf-reason} header.
 * Carries no stack trace: it is a data outcome, not a program error.
 */
public final class MalformedRecordException extends Exception {
  private final DeadLetterReason reason;

  public MalformedRecordException(DeadLetterReason reason, String message) {
    super(message, null, false, false);
    this.reason = reason;
  }

  public DeadLetterReason reason() {
    return reason;
  }
}
