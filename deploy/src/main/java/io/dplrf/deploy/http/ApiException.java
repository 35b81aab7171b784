package io.dplrf.deploy.http;

/** A client-visible error: status code and a one-line message for {@code {"error": ...}}. */
final class ApiException extends RuntimeException {
  final int status;
  /** For a 503: seconds after which the client may retry ({@code Retry-After}); 0 for none. */
  final int retryAfterSeconds;

  ApiException(int status, String message) {
    this(status, message, 0);
  }

  private ApiException(int status, String message, int retryAfterSeconds) {
    super(message, null, false, false);
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  static ApiException badRequest(String message) {
    return new ApiException(400, message);
  }

  static ApiException notFound(String message) {
    return new ApiException(404, message);
  }

  /** A server-side problem the client should know by name (never an exception's text). */
  static ApiException serverError(String message) {
    return new ApiException(500, message);
  }

  static ApiException unavailable(String message, int retryAfterSeconds) {
    return new ApiException(503, message, retryAfterSeconds);
  }
}
