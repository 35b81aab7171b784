package io.dplrf.deploy.http;

/**
 * A request needs a stored file that failed its integrity check (e.g. a closed-node file whose
 * checksum does not match): answered 500 with this message, which names the file (relative to the
 * state directory) and the problem, never as "internal error". Not temporary: the operator
 * restores the file from a backup.
 */
public final class DamagedStateException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DamagedStateException(String message, Throwable cause) {
    super(message, cause);
  }
}
