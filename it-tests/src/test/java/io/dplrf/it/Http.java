package io.dplrf.it;

import io.dplrf.deploy.io.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Small HTTP client for the service's public and operator APIs (java.net.http + dplrf's Json). */
final class Http {
  private static final HttpClient CLIENT = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(5)).build();

  private Http() {}

  /** A response: status and body text. */
  record Answer(int status, String body) {
    Object json() {
      return Json.parse(body);
    }

    @Override
    public String toString() {
      return status + " " + (body.length() > 300 ? body.substring(0, 300) + "..." : body);
    }
  }

  static Answer get(String url) throws IOException, InterruptedException {
    HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url))
        .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), r.body());
  }

  /**
   * A request with an optional bearer token (null: no Authorization header); POST sends an empty
   * body.
   */
  static Answer send(String method, String url, String bearer)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (bearer != null) {
      b.header("Authorization", "Bearer " + bearer);
    }
    HttpResponse<String> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(r.statusCode(), r.body());
  }

  /** GET that must answer 200 with a JSON object. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> object(String url) throws IOException, InterruptedException {
    Answer a = get(url);
    if (a.status() != 200) {
      throw new IOException("GET " + url + " answered " + a);
    }
    return (Map<String, Object>) a.json();
  }

  // ---- typed access into parsed JSON --------------------------------------------------------

  static long longOf(Map<String, Object> m, String key) {
    return Math.round((Double) m.get(key));
  }

  static double doubleOf(Map<String, Object> m, String key) {
    return (Double) m.get(key);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> objectOf(Map<String, Object> m, String key) {
    return (Map<String, Object>) m.get(key);
  }

  @SuppressWarnings("unchecked")
  static double[] vector(Object list) {
    List<Object> l = (List<Object>) list;
    double[] out = new double[l.size()];
    for (int x = 0; x < out.length; x++) {
      out[x] = (Double) l.get(x);
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  static double[][] matrix(Object list) {
    List<Object> rows = (List<Object>) list;
    double[][] out = new double[rows.size()][];
    for (int x = 0; x < out.length; x++) {
      out[x] = vector(rows.get(x));
    }
    return out;
  }
}
