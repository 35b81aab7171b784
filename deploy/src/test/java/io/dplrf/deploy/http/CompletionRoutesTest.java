package io.dplrf.deploy.http;

import static io.dplrf.deploy.http.Fixtures.get;
import static io.dplrf.deploy.http.Fixtures.request;
import static io.dplrf.deploy.http.Fixtures.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.metrics.Metrics;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The completion routes' HTTP contract against a recording {@link CompletionEndpoints}: who gets
 * 401/403, parameter checks before anything is computed, POST-only actions behind the admin
 * token, and no prediction computed for a request that is refused.
 */
class CompletionRoutesTest {
  private final Metrics metrics = new Metrics();
  private final List<String> predicted = new ArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();
  private PublicApi api;
  private OperatorApi operator;

  private final CompletionEndpoints endpoints = new CompletionEndpoints() {
    @Override
    public Optional<Map<String, Object>> model() {
      return runs.get() == 0 ? Optional.empty() : Optional.of(Map.of("iterations", 3));
    }

    @Override
    public Map<String, Object> statusFields() {
      return Map.of("runsStarted", runs.get());
    }

    @Override
    public Map<String, Object> operatorStatus() {
      return Map.of("iteration", 2, "lastRunSeconds", 1.5);
    }

    @Override
    public int users() {
      return 10;
    }

    @Override
    public int items() {
      return 5;
    }

    @Override
    public boolean tokenValid(int user, String token) {
      return token.equals("tok-" + user);
    }

    @Override
    public Map<String, Object> predictions(int user, int n) {
      predicted.add(user + ":" + n);
      return Map.of("user", user, "n", n);
    }

    @Override
    public String issueToken(int user) {
      return "tok-" + user;
    }

    @Override
    public Map<String, Object> run() {
      if (runs.get() >= 1) {
        throw new Refused(409, "budget spent");
      }
      return Map.of("run", runs.incrementAndGet());
    }
  };

  @BeforeEach
  void start() throws Exception {
    // As the completion mode's status: fits of R = 2, its own fields under "completion".
    StatusSource status = () -> {
      int started = runs.get();
      return new Status(1.0, 1e-6, "private-biased-frank-wolfe", "one-user",
          "streams differing in all rating records of one user", "user", started >= 2,
          started == 0 ? "no fit yet" : "serving the model of fit " + started,
          new Status.Fits(started, 2, false,
              started == 0 ? OptionalInt.empty() : OptionalInt.of(started),
              started == 0 ? null : Fixtures.AT, 0.71, 10, 5, "private matrix completion",
              endpoints.statusFields()));
    };
    api = PublicApi.start(new InetSocketAddress("127.0.0.1", 0),
        ReleaseCache.none("mode completion serves its model at /v1/completion"), status,
        metrics, ModeRoutes.completion(endpoints));
    operator = OperatorApi.start(new InetSocketAddress("127.0.0.1", 0), metrics, Map::of,
        Optional.of("admin"), ModeRoutes.completion(endpoints));
  }

  @AfterEach
  void stop() {
    api.close();
    operator.close();
    metrics.close();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> json(java.net.http.HttpResponse<byte[]> r) {
    return (Map<String, Object>) io.dplrf.deploy.io.Json.parse(text(r));
  }

  private static String[] bearer(String token) {
    return new String[] {"Authorization", "Bearer " + token};
  }

  @Test
  void predictions_onlyWithTheUsersOwnToken_andValidParameters() throws Exception {
    int p = api.port();
    assertEquals(401, get(p, "/v1/users/3/predictions").statusCode());
    assertEquals(401, get(p, "/v1/users/3/predictions", "Authorization", "Basic tok-3")
        .statusCode());
    assertEquals(403, get(p, "/v1/users/3/predictions", bearer("tok-4")).statusCode());
    assertEquals(403, get(p, "/v1/users/3/predictions", bearer("nonsense")).statusCode());
    assertEquals(400, get(p, "/v1/users/10/predictions", bearer("tok-10")).statusCode());
    assertEquals(400, get(p, "/v1/users/-1/predictions", bearer("tok--1")).statusCode());
    assertEquals(400, get(p, "/v1/users/3/predictions?n=0", bearer("tok-3")).statusCode());
    assertEquals(400, get(p, "/v1/users/3/predictions?n=6", bearer("tok-3")).statusCode());
    assertEquals(400, get(p, "/v1/users/3/predictions?user=4", bearer("tok-3")).statusCode());
    assertTrue(predicted.isEmpty(), "nothing computed for refused requests: " + predicted);
    var ok = get(p, "/v1/users/3/predictions?n=5", bearer("tok-3"));
    assertEquals(200, ok.statusCode(), text(ok));
    assertEquals("no-store", ok.headers().firstValue("Cache-Control").orElse(""));
    assertEquals(200, get(p, "/v1/users/3/predictions", bearer("tok-3")).statusCode());
    assertEquals(List.of("3:5", "3:5"), predicted, "default n = min(10, items)");
    assertEquals(405, request(p, "POST", "/v1/users/3/predictions", bearer("tok-3"))
        .statusCode());
  }

  @Test
  void model_isPublic_statusCarriesCompletion_actionsArePostBehindTheAdminToken() throws Exception {
    assertEquals(404, get(api.port(), "/v1/completion").statusCode());
    int o = operator.port();
    assertEquals(401, request(o, "POST", "/admin/completion/run").statusCode());
    assertEquals(405, get(o, "/admin/completion/run", bearer("admin")).statusCode());
    var run = request(o, "POST", "/admin/completion/run", bearer("admin"));
    assertEquals(202, run.statusCode(), text(run));
    var refused = request(o, "POST", "/admin/completion/run", bearer("admin"));
    assertEquals(409, refused.statusCode());
    assertTrue(text(refused).contains("budget spent"), text(refused));
    assertEquals(200, get(api.port(), "/v1/completion").statusCode());
    assertTrue(text(get(api.port(), "/v1/status")).contains("\"completion\""));
    assertEquals(401, request(o, "POST", "/admin/users/3/token").statusCode());
    var token = request(o, "POST", "/admin/users/3/token", bearer("admin"));
    assertEquals(200, token.statusCode());
    assertTrue(text(token).contains("\"tok-3\""), text(token));
    assertEquals(400, request(o, "POST", "/admin/users/10/token", bearer("admin")).statusCode());
    // Fit timing on the operator port only.
    assertEquals(401, get(o, "/admin/completion").statusCode());
    var progress = get(o, "/admin/completion", bearer("admin"));
    assertEquals(200, progress.statusCode());
    assertTrue(text(progress).contains("\"lastRunSeconds\": 1.5"), text(progress));
    // The public port has no operator routes.
    assertEquals(404, request(api.port(), "POST", "/admin/users/3/token").statusCode());
    assertEquals(404, get(api.port(), "/admin/completion").statusCode());
  }

  /**
   * /v1/status and the page speak of fits, the model and its routes: no epoch, release, clip or
   * rank (none applies), users and items for rows and cols, no fit timing; the release routes
   * say where the model is instead of waiting for an epoch.
   */
  @Test
  void statusAndPage_describeFitsAndTheModel_notEpochsOrReleases() throws Exception {
    int p = api.port();
    Map<String, Object> before = json(get(p, "/v1/status"));
    for (String absent : List.of("epoch", "epochs", "latestRelease", "lastReleaseTime",
        "nextEpochClose", "clip", "rank", "rows", "cols")) {
      assertFalse(before.containsKey(absent), absent + " in " + before);
    }
    assertEquals(10.0, before.get("users"));
    assertEquals(5.0, before.get("items"));
    assertEquals(Map.of("runsStarted", 0.0), before.get("completion"));
    assertEquals("user", before.get("privacyUnit"));
    assertTrue(before.containsKey("health"), "" + before);
    String page = text(get(p, "/"));
    assertTrue(page.contains("<title>dplrf · fit 0 of 2</title>"), page);
    assertTrue(page.contains(">waiting</span>"), page);
    assertTrue(page.contains("10 users × 5 items"), page);
    assertTrue(page.contains("2 fits left in the budget"), page);
    assertTrue(page.contains("id=\"no-model\""), page);
    var release = get(p, "/v1/release/latest");
    assertEquals(404, release.statusCode());
    assertTrue(text(release).contains("mode completion serves its model at /v1/completion"),
        text(release));

    assertEquals(202, request(operator.port(), "POST", "/admin/completion/run", bearer("admin"))
        .statusCode());
    page = text(get(p, "/"));
    assertTrue(page.contains("1 <small>of 2</small>"), page);
    assertTrue(page.contains("1 fit left in the budget"), page);
    assertTrue(page.contains(">serving</span>"), page);
    assertTrue(page.contains("Model age") && page.contains("fit 1, finished 2024-05-01T12:00:00Z"),
        page);
    assertTrue(page.contains("ε = 1, δ = 1e-6</span>") && page.contains("over all 2 fits (ε = 0.71 each)"),
        page);
    assertTrue(page.contains("<a href=\"/v1/completion\">"), page);
    for (String absent : List.of("/v1/release", "Epoch", "epochs left", "clip C", ", rank",
        "lastRunSeconds", "iteration", "sv-plot")) {
      assertFalse(page.contains(absent), absent + " on the page:\n" + page);
    }
  }
}
