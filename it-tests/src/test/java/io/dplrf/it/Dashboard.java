package io.dplrf.it;

import static io.dplrf.it.RepoFiles.list;
import static io.dplrf.it.RepoFiles.map;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The Grafana dashboard of docker-compose.yml ({@value #PATH}): its panels (also those nested in
 * collapsed rows), their query expressions and data sources, and the metric names the queries use.
 */
final class Dashboard {
  static final String PATH = "deploy/grafana/dashboards/dplrf.json";

  /** A panel with queries: title, type, PromQL expressions, data source refs (panel and targets). */
  record Panel(String title, String type, List<String> exprs, List<Map<String, Object>> datasources) {
    Set<String> metricNames() {
      Set<String> out = new TreeSet<>();
      for (String e : exprs) {
        out.addAll(PromQl.metricNames(e));
      }
      return out;
    }
  }

  final Map<String, Object> json;
  final List<Panel> panels = new ArrayList<>();

  private Dashboard(Map<String, Object> json) {
    this.json = json;
    collect(list(json, "panels", PATH), PATH + ".panels");
  }

  static Dashboard load() {
    return new Dashboard(map(RepoFiles.json(PATH), PATH));
  }

  private void collect(List<Object> ps, String where) {
    for (int x = 0; x < ps.size(); x++) {
      String at = where + "[" + x + "]";
      Map<String, Object> p = map(ps.get(x), at);
      if (p.get("panels") != null) {
        collect(list(p, "panels", at), at + ".panels"); // a row's nested panels
      }
      if ("row".equals(p.get("type"))) {
        continue;
      }
      List<String> exprs = new ArrayList<>();
      List<Map<String, Object>> sources = new ArrayList<>();
      if (p.get("datasource") != null) {
        sources.add(map(p, "datasource", at));
      }
      Object targets = p.get("targets");
      if (targets != null) {
        for (Object t : list(targets, at + ".targets")) {
          Map<String, Object> target = map(t, at + ".targets[]");
          Object expr = target.get("expr");
          if (expr == null || expr.toString().isBlank()) {
            throw new AssertionError(at + " (" + p.get("title") + "): a target without expr");
          }
          exprs.add(expr.toString());
          if (target.get("datasource") != null) {
            sources.add(map(target, "datasource", at + ".targets[]"));
          }
        }
      }
      panels.add(new Panel(String.valueOf(p.get("title")), String.valueOf(p.get("type")), exprs, sources));
    }
  }

  /** Every metric name used by any panel query. */
  Set<String> metricNames() {
    Set<String> out = new TreeSet<>();
    for (Panel p : panels) {
      out.addAll(p.metricNames());
    }
    return out;
  }

  /** Every PromQL expression of the dashboard. */
  List<String> exprs() {
    List<String> out = new ArrayList<>();
    for (Panel p : panels) {
      out.addAll(p.exprs());
    }
    return out;
  }

  /** The template variable {@code name} ({@code templating.list}). */
  Map<String, Object> variable(String name) {
    for (Object v : list(map(json, "templating", PATH), "list", PATH + ".templating")) {
      Map<String, Object> variable = map(v, PATH + ".templating.list[]");
      if (name.equals(variable.get("name"))) {
        return variable;
      }
    }
    throw new AssertionError(PATH + ": no template variable " + name);
  }
}
