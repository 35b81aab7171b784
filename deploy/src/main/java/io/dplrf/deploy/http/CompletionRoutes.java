package io.dplrf.deploy.http;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The routes of mode completion (docs/completion-service.md):
 *
 * <pre>
 * public port
 *   GET  /v1/completion                    the latest model's public part (item factors, diagnostics)
 *   GET  /v1/users/{id}/predictions?n=N    user id's top-N unrated items and scores; requires
 *                                          Authorization: Bearer &lt;id's token&gt;: none → 401,
 *                                          another user's or a wrong token → 403
 * operator port (behind admin-token when set)
 *   GET  /admin/completion                 fit progress and durations (not public: a fit's time
 *                                          grows with the stored ratings)
 *   POST /admin/completion/run             start a fit now → 202 {"run": r, ...}; 409 if refused
 *   POST /admin/users/{id}/token           → {"user": id, "token": "..."}
 * </pre>
 */
final class CompletionRoutes {
  private static final int DEFAULT_N = 10;

  private CompletionRoutes() {}

  static void addPublic(Router router, CompletionEndpoints c) {
    router.route("/v1/completion", Set.of(), r -> Response.json(200, c.model().orElseThrow(
            () -> ApiException.notFound("no completion model yet: no run has finished"))))
        .route("/v1/users/{id}/predictions", Set.of("n"), r -> predictions(r, c));
  }

  static void addOperator(Router router, CompletionEndpoints c) {
    router.route("/admin/completion", Set.of(), r -> Response.json(200, c.operatorStatus()));
    router.post("/admin/completion/run", Set.of(), r -> {
      try {
        return Response.json(202, c.run());
      } catch (CompletionEndpoints.Refused e) {
        throw new ApiException(e.status(), e.getMessage());
      }
    }).post("/admin/users/{id}/token", Set.of(), r -> {
      int user = PublicApi.index("id", r.path().get("id"), c.users());
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("user", user);
      out.put("token", c.issueToken(user));
      out.put("usage", "GET /v1/users/" + user + "/predictions with 'Authorization: Bearer <token>'");
      return Response.json(200, out);
    });
  }

  private static Response predictions(Router.Request r, CompletionEndpoints c) throws Exception {
    String auth = r.header("Authorization");
    if (auth == null || !auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Response.error(401, "missing bearer token: send 'Authorization: Bearer <your token>'")
          .header("WWW-Authenticate", "Bearer realm=\"dplrf-user\"");
    }
    int user = PublicApi.index("id", r.path().get("id"), c.users());
    if (!c.tokenValid(user, auth.substring(7).trim())) {
      // The same answer for a wrong token and another user's: nothing to learn about either.
      return Response.error(403, "this token does not grant access to user " + user);
    }
    String rawN = r.query().get("n");
    int n = rawN == null ? Math.min(DEFAULT_N, c.items()) : PublicApi.index("n", rawN,
        c.items() + 1);
    if (n < 1) {
      throw ApiException.badRequest("n must be in [1, " + c.items() + "]. Provided value: " + rawN);
    }
    try {
      return Response.json(200, c.predictions(user, n)).header("Cache-Control", "no-store");
    } catch (CompletionEndpoints.Refused e) {
      throw new ApiException(e.status(), e.getMessage());
    }
  }
}
