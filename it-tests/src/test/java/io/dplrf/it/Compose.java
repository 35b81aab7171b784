package io.dplrf.it;

import static io.dplrf.it.RepoFiles.list;
import static io.dplrf.it.RepoFiles.map;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Read-only view of {@value #PATH} for tests: services, their port mappings, mounts, environment
 * (with compose's {@code ${VAR:-default}} interpolation against a given shell environment) and
 * start order. Short and long compose syntaxes are both understood.
 */
final class Compose {
  static final String PATH = "docker-compose.yml";

  /** A published port: host address ("" = every interface), host port, container port. */
  record Port(String hostIp, String hostPort, int containerPort) {}

  /** A mount: named volume (source is its name) or bind mount (source is a host path). */
  record Mount(boolean named, String source, String target) {}

  private static final Pattern VARIABLE =
      Pattern.compile("\\$\\$|\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\\}|\\$([A-Za-z_][A-Za-z0-9_]*)");

  final Map<String, Object> doc;
  final Map<String, Object> services;

  private Compose(Map<String, Object> doc) {
    this.doc = doc;
    this.services = map(doc, "services", PATH);
  }

  static Compose load() {
    return new Compose(map(RepoFiles.yaml(PATH), PATH));
  }

  Map<String, Object> service(String name) {
    return map(services, name, PATH + ".services");
  }

  String where(String service) {
    return PATH + ": services." + service;
  }

  List<Port> ports(String service) {
    List<Port> out = new ArrayList<>();
    Object ports = service(service).get("ports");
    if (ports == null) {
      return out;
    }
    for (Object p : list(ports, where(service) + ".ports")) {
      if (p instanceof Map) {
        Map<String, Object> m = map(p, where(service) + ".ports[]");
        out.add(new Port(String.valueOf(m.getOrDefault("host_ip", "")),
            String.valueOf(m.getOrDefault("published", "")), Integer.parseInt(m.get("target").toString())));
        continue;
      }
      String s = p.toString().replaceFirst("/(tcp|udp)$", "");
      int last = s.lastIndexOf(':');
      int container = Integer.parseInt(s.substring(last + 1));
      if (last < 0) {
        out.add(new Port("", "", container));
        continue;
      }
      String rest = s.substring(0, last);
      int ip = rest.lastIndexOf(':');
      out.add(ip < 0 ? new Port("", rest, container)
          : new Port(rest.substring(0, ip), rest.substring(ip + 1), container));
    }
    return out;
  }

  List<Mount> mounts(String service) {
    List<Mount> out = new ArrayList<>();
    Object volumes = service(service).get("volumes");
    if (volumes == null) {
      return out;
    }
    for (Object v : list(volumes, where(service) + ".volumes")) {
      if (v instanceof Map) {
        Map<String, Object> m = map(v, where(service) + ".volumes[]");
        out.add(new Mount("volume".equals(m.get("type")), String.valueOf(m.get("source")),
            String.valueOf(m.get("target"))));
        continue;
      }
      String[] parts = v.toString().split(":");
      if (parts.length == 1) {
        out.add(new Mount(true, "", parts[0])); // anonymous volume
        continue;
      }
      String source = parts[0];
      boolean bind = source.startsWith(".") || source.startsWith("/") || source.startsWith("~");
      out.add(new Mount(!bind, source, parts[1]));
    }
    return out;
  }

  /** The service's environment as written (values uninterpolated); list or map form. */
  Map<String, String> rawEnvironment(String service) {
    Map<String, String> out = new LinkedHashMap<>();
    Object env = service(service).get("environment");
    if (env == null) {
      return out;
    }
    if (env instanceof List) {
      for (Object e : list(env, where(service) + ".environment")) {
        String s = e.toString();
        int eq = s.indexOf('=');
        out.put(eq < 0 ? s : s.substring(0, eq), eq < 0 ? null : s.substring(eq + 1));
      }
    } else {
      map(env, where(service) + ".environment").forEach((k, v) -> out.put(k, v == null ? null : v.toString()));
    }
    return out;
  }

  /** The environment the container gets when compose runs in {@code shell}. */
  Map<String, String> environment(String service, Map<String, String> shell) {
    Map<String, String> out = new LinkedHashMap<>();
    rawEnvironment(service).forEach((k, v) -> {
      if (v == null) {
        if (shell.containsKey(k)) {
          out.put(k, shell.get(k)); // "- NAME" passes the shell's value through
        }
      } else {
        out.put(k, interpolate(v, shell, where(service) + ".environment." + k));
      }
    });
    return out;
  }

  /**
   * Compose interpolation: {@code $$}, {@code $VAR}, {@code ${VAR}}, {@code ${VAR:-default}}
   * (unset or empty), {@code ${VAR-default}} (unset only), {@code ${VAR:?err}} / {@code ${VAR?err}}
   * (required), {@code ${VAR:+alt}} / {@code ${VAR+alt}}.
   */
  static String interpolate(String value, Map<String, String> shell, String where) {
    Matcher m = VARIABLE.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement;
      if (m.group().equals("$$")) {
        replacement = "$";
      } else if (m.group(4) != null) {
        replacement = shell.getOrDefault(m.group(4), "");
      } else {
        String name = m.group(1);
        String op = m.group(2);
        String arg = m.group(3);
        String v = shell.get(name);
        boolean colon = op != null && op.startsWith(":");
        boolean absent = v == null || (colon && v.isEmpty());
        if (op == null) {
          replacement = v == null ? "" : v;
        } else if (op.endsWith("-")) {
          replacement = absent ? arg : v;
        } else if (op.endsWith("?")) {
          if (absent) {
            throw new AssertionError(where + ": requires " + name + " (" + arg + ")");
          }
          replacement = v;
        } else {
          replacement = absent ? "" : arg;
        }
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** depends_on as service → condition (the short list form means service_started). */
  Map<String, String> dependsOn(String service) {
    Map<String, String> out = new LinkedHashMap<>();
    Object deps = service(service).get("depends_on");
    if (deps == null) {
      return out;
    }
    if (deps instanceof List) {
      for (Object d : list(deps, where(service) + ".depends_on")) {
        out.put(d.toString(), "service_started");
      }
    } else {
      map(deps, where(service) + ".depends_on").forEach((k, v) -> out.put(k,
          String.valueOf(map(v, where(service) + ".depends_on." + k).getOrDefault("condition", "service_started"))));
    }
    return out;
  }

  /** The health check's test as a list ("CMD", ...) or ("CMD-SHELL", cmd); empty if none or disabled. */
  List<String> healthcheck(String service) {
    Object hc = service(service).get("healthcheck");
    if (hc == null) {
      return List.of();
    }
    Map<String, Object> m = map(hc, where(service) + ".healthcheck");
    if (Boolean.TRUE.equals(m.get("disable")) || m.get("test") == null) {
      return List.of();
    }
    Object test = m.get("test");
    if (test instanceof List) {
      List<String> out = new ArrayList<>();
      list(test, where(service) + ".healthcheck.test").forEach(t -> out.add(t.toString()));
      return out.isEmpty() || out.get(0).equals("NONE") ? List.of() : out;
    }
    return List.of("CMD-SHELL", test.toString());
  }
}
