package io.dplrf.deploy.http;

import java.nio.ByteBuffer;
import java.util.Locale;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's error handler for the requests it refuses before any route sees them — a malformed
 * request line or URI (400), a request line longer than the header limit (414), headers beyond it
 * (431) — and for any failure of the transport itself (500): the same JSON {@code {"error": ...}}
 * as every other error, with a message that names the limit and never an exception.
 */
final class JsonErrors implements Request.Handler {
  private final int maxHeaderBytes;

  JsonErrors(int maxHeaderBytes) {
    this.maxHeaderBytes = maxHeaderBytes;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int status = response.getStatus();
    String reason = null;
    if (request.getAttribute(ErrorHandler.ERROR_EXCEPTION) instanceof HttpException e) {
      status = e.getCode();
      reason = e.getReason();
    }
    if (status < 400 || status > 599) {
      status = 500;
    }
    response.setStatus(status);
    if (HttpStatus.hasNoBody(status)) {
      callback.succeeded();
      return true;
    }
    io.dplrf.deploy.http.Response body = io.dplrf.deploy.http.Response.error(status,
        message(status, reason));
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, body.contentType);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
    response.getHeaders().put("X-Content-Type-Options", "nosniff");
    response.write(true, ByteBuffer.wrap(body.body), callback);
    return true;
  }

  /** One line naming what was wrong; Jetty's reason (e.g. "Ambiguous URI path separator") kept. */
  String message(int status, String reason) {
    return switch (status) {
      case 414 -> "request line too long: the request line and headers may take at most "
          + maxHeaderBytes + " bytes";
      case 431 -> "request headers too large: the request line and headers may take at most "
          + maxHeaderBytes + " bytes";
      case 500 -> "internal error";
      default -> {
        String name = HttpStatus.getMessage(status).toLowerCase(Locale.ROOT);
        yield reason == null || reason.equalsIgnoreCase(name) ? name
            : name + ": " + Router.truncate(reason);
      }
    };
  }
}
