package io.dplrf.deploy.oneshot;

import io.dplrf.sketch.matrix.Dense;
import io.dplrf.sketch.noise.GridGaussian;
import io.dplrf.sketch.noise.GridLaplace;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns plans and reports (records) into plain maps/lists for release.json, so that every noise
 * scale, sensitivity bound and calibration choice in a plan is written out without a hand-kept
 * list that could forget one. Large matrices are summarised by their shape.
 */
public final class ReleaseDocument {
  private ReleaseDocument() {}

  public static Object describe(Object value) {
    if (value == null || value instanceof String || value instanceof Boolean) {
      return value;
    }
    if (value instanceof Double d && !Double.isFinite(d)) {
      return null; // JSON has no NaN/∞; a report field that is undefined is written as null
    }
    if (value instanceof Number num) {
      return num;
    }
    if (value instanceof Enum<?> e) {
      return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
    if (value instanceof double[] a) {
      List<Object> l = new ArrayList<>(a.length);
      for (double d : a) {
        l.add(describe(d));
      }
      return l;
    }
    if (value instanceof boolean[] a) {
      List<Object> l = new ArrayList<>(a.length);
      for (boolean d : a) {
        l.add(d);
      }
      return l;
    }
    if (value instanceof Dense d) {
      return "matrix " + d.rows() + "x" + d.cols();
    }
    if (value instanceof GridGaussian g) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("distribution", "discrete Gaussian on a power-of-two grid (Canonne-Kamath-Steinke 2020)");
      m.put("gridStep", g.gamma());
      m.put("integerScale", g.scale());
      m.put("sigma", g.effectiveSigma());
      return m;
    }
    if (value instanceof GridLaplace g) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("distribution", "discrete Laplace on a power-of-two grid (exact geometric mechanism)");
      m.put("gridStep", g.gamma());
      m.put("integerScale", g.scale());
      m.put("scale", g.effectiveScale());
      return m;
    }
    if (value instanceof Iterable<?> it) {
      List<Object> l = new ArrayList<>();
      for (Object o : it) {
        l.add(describe(o));
      }
      return l;
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> m = new LinkedHashMap<>();
      map.forEach((k, v) -> m.put(String.valueOf(k), describe(v)));
      return m;
    }
    if (value.getClass().isRecord()) {
      Map<String, Object> m = new LinkedHashMap<>();
      for (RecordComponent rc : value.getClass().getRecordComponents()) {
        try {
          m.put(rc.getName(), describe(rc.getAccessor().invoke(value)));
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("cannot read " + rc, e);
        }
      }
      return m;
    }
    return String.valueOf(value);
  }
}
