package io.dplrf.deploy.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The routes a service mode adds to the public and the operator port. Made by this package's
 * factories, so that everything about HTTP (paths, parameters, authentication, status codes)
 * stays here while the mode supplies the data: {@link #localProtocol} for mode local, {@link
 * #completion} for mode completion, {@link #none} for the tree.
 */
public final class ModeRoutes {
  private final List<AddTo> publicPort;
  private final List<AddTo> operatorPort;

  /** Adds routes to a router. */
  interface AddTo {
    void addTo(Router router);
  }

  private ModeRoutes(List<AddTo> publicPort, List<AddTo> operatorPort) {
    this.publicPort = List.copyOf(publicPort);
    this.operatorPort = List.copyOf(operatorPort);
  }

  /** No routes beyond the common ones. */
  public static ModeRoutes none() {
    return new ModeRoutes(List.of(), List.of());
  }

  /**
   * Mode local: {@code GET /v1/local/protocol}, the public protocol clients randomize with
   * (public parameters only).
   */
  public static ModeRoutes localProtocol(Map<String, Object> protocol) {
    Map<String, Object> body = Collections.unmodifiableMap(new LinkedHashMap<>(protocol));
    List<AddTo> routes = new ArrayList<>();
    routes.add(r -> r.route("/v1/local/protocol", Set.of(), q -> Response.json(200, body)));
    return new ModeRoutes(routes, List.of());
  }

  /** Mode completion: the model, per-user predictions and the operator's actions ({@link CompletionRoutes}). */
  public static ModeRoutes completion(CompletionEndpoints endpoints) {
    return new ModeRoutes(List.of(r -> CompletionRoutes.addPublic(r, endpoints)),
        List.of(r -> CompletionRoutes.addOperator(r, endpoints)));
  }

  void addPublic(Router router) {
    publicPort.forEach(a -> a.addTo(router));
  }

  void addOperator(Router router) {
    operatorPort.forEach(a -> a.addTo(router));
  }
}
