package io.dplrf.deploy.config;

import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.NeighbouringRelation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The settings that differ between what a state directory was created with and what is
 * configured now, one {@code name: stored → configured} per difference, so that a refused restart
 * names the change instead of printing two whole records to compare by eye. A difference is
 * named by the setting the user types ({@code rank}, not the record component {@code sizes.k}),
 * and an enum by its spelling in the settings ({@code priv2-sparse}, not {@code PRIV2_SPARSE}).
 */
public final class SettingsDiff {
  /**
   * The settings the components of the privacy core's parameter records ({@code TreeConfig},
   * {@code BltConfig}: {@code SketchSizes sizes}, {@code PrivacyParams privacy}) come from, by
   * dotted path; a component not listed keeps its path.
   */
  private static final Map<String, String> SETTINGS = Map.of(
      "sizes.m", "rows", "sizes.n", "cols", "sizes.k", "rank", "sizes.t", "sketch-cols",
      "sizes.v", "sketch-rows", "privacy.epsilon", "epsilon", "privacy.delta", "delta",
      "relation", "relation (from privacy-unit and mechanism)");

  private SettingsDiff() {}

  /**
   * The components of two records of the same type that differ, nested records followed
   * component by component ({@code privacy.epsilon}), each named by its setting ({@code epsilon}).
   *
   * @return e.g. {@code "epsilon: 1.0 in the state directory, 2.0 configured"}, one per
   *     difference joined by {@code "; "}; empty when they are equal component by component
   */
  public static String of(Record stored, Record configured) {
    List<String> out = new ArrayList<>();
    collect("", stored, configured, out);
    return String.join("; ", out);
  }

  /** One difference of a named setting, in the shape {@link #of} uses. */
  public static String line(String name, Object stored, Object configured) {
    return name + ": " + (stored == null ? "unset" : stored) + " in the state directory, "
        + (configured == null ? "unset" : configured) + " configured";
  }

  private static void collect(String prefix, Object a, Object b, List<String> out) {
    if (a instanceof Record ra && b instanceof Record rb && a.getClass() == b.getClass()) {
      for (RecordComponent c : a.getClass().getRecordComponents()) {
        collect(prefix + c.getName() + ".", value(c, ra), value(c, rb), out);
      }
      return;
    }
    if (!Objects.equals(a, b)) {
      String path = prefix.substring(0, Math.max(0, prefix.length() - 1));
      out.add(line(SETTINGS.getOrDefault(path, path), spelled(a), spelled(b)));
    }
  }

  /** An enum as the settings spell it; anything else as it is. */
  private static Object spelled(Object value) {
    if (value instanceof Mechanism m) {
      return m.cliName();
    }
    if (value instanceof NeighbouringRelation r) {
      return r.cliName();
    }
    if (value instanceof Enum<?> e) {
      return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
    return value;
  }

  private static Object value(RecordComponent c, Record r) {
    try {
      return c.getAccessor().invoke(r);
    } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
      throw new IllegalStateException("cannot read " + c.getName() + " of " + r.getClass(), e);
    }
  }
}
