package io.dplrf.deploy.io;

/**
 * A matrix input file cannot be read or is malformed. The message is one line of the form
 * {@code FILE:LINE: what is wrong} (or {@code FILE: what is wrong} when no line is involved, e.g.
 * the file does not exist), fit to print on stderr as is.
 */
public final class InputException extends Exception {
  public InputException(String message) {
    super(message);
  }

  public InputException(String message, Throwable cause) {
    super(message, cause);
  }
}
