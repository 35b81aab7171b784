package io.dplrf.deploy.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Requests written byte by byte on a plain socket, for what {@link java.net.http.HttpClient}
 * refuses to send (a malformed URI, a 1 MB request line), and the raw answer parsed.
 */
final class RawHttp {
  private RawHttp() {}

  /** A parsed answer: status, headers (lower-case names) and body (de-chunked). */
  record Answer(int status, Map<String, String> headers, String body) {}

  /**
   * Writes {@code request} on a new connection (on its own thread, so that a server that answers
   * before reading it all is heard) and reads the answer until the server closes.
   */
  static Answer send(int port, byte[] request) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
        try {
          for (int off = 0; off < request.length; off += 8192) {
            out.write(request, off, Math.min(8192, request.length - off));
          }
          out.flush();
        } catch (IOException e) {
          // the server answered and closed before reading everything: expected for 414/431
        }
      });
      byte[] raw = readAll(socket.getInputStream());
      writer.cancel(true);
      return parse(raw);
    }
  }

  static Answer send(int port, String request) throws IOException {
    return send(port, request.getBytes(StandardCharsets.ISO_8859_1));
  }

  /** Reads until EOF; a reset after some bytes ends the answer there. */
  static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    try {
      for (int n; (n = in.read(buf)) >= 0; ) {
        b.write(buf, 0, n);
      }
    } catch (SocketException e) {
      if (b.size() == 0) {
        throw e;
      }
    }
    return b.toByteArray();
  }

  static Answer parse(byte[] raw) {
    String text = new String(raw, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (!text.startsWith("HTTP/1.1 ") || end < 0) {
      throw new AssertionError("not an HTTP answer: " + text);
    }
    String[] lines = text.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].substring(9, 12));
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
          lines[i].substring(colon + 1).trim());
    }
    String body = text.substring(end + 4);
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      StringBuilder b = new StringBuilder();
      int at = 0;
      while (true) {
        int eol = body.indexOf("\r\n", at);
        int size = Integer.parseInt(body.substring(at, eol).trim(), 16);
        if (size == 0) {
          break;
        }
        b.append(body, eol + 2, eol + 2 + size);
        at = eol + 2 + size + 2;
      }
      body = b.toString();
    }
    return new Answer(status, headers,
        new String(body.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
  }
}
