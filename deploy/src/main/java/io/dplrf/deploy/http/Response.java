package io.dplrf.deploy.http;

import io.dplrf.deploy.io.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A response before it is sent: either a small body of known length or a body {@link Writer}
 * that streams (chunked) and is not run for HEAD.
 */
final class Response {
  static final String JSON = "application/json";

  /** Writes a streamed body; must not close {@code out}. */
  interface Writer {
    void write(OutputStream out) throws IOException;
  }

  final int status;
  final String contentType;
  final byte[] body; // null iff writer != null
  final Writer writer;
  final Map<String, String> headers = new LinkedHashMap<>();

  private Response(int status, String contentType, byte[] body, Writer writer) {
    this.status = status;
    this.contentType = contentType;
    this.body = body;
    this.writer = writer;
  }

  static Response json(int status, Object value) {
    return bytes(status, JSON, (Json.write(value) + "\n").getBytes(StandardCharsets.US_ASCII));
  }

  static Response error(int status, String message) {
    return json(status, Json.object().put("error", message));
  }

  static Response bytes(int status, String contentType, byte[] body) {
    return new Response(status, contentType, body, null);
  }

  static Response stream(int status, String contentType, Writer writer) {
    return new Response(status, contentType, null, writer);
  }

  Response header(String name, String value) {
    headers.put(name, value);
    return this;
  }
}
