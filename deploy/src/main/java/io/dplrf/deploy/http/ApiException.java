package io.dplrf.deploy.http;

/** A client-visible error: status code and a one-line message for {@code {"error": ...}}. */
final class ApiException extends RuntimeException {
  final int status;

  ApiException(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }

  static ApiException badRequest(String message) {
    return new ApiException(400, message);
  }

  static ApiException notFound(String message) {
    return new ApiException(404, message);
  }
}
