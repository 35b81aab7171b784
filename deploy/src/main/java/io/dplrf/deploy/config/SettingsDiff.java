package io.dplrf.deploy.config;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The settings that differ between what a state directory was created with and what is
 * configured now, one {@code name: stored → configured} per difference, so that a refused restart
 * names the change instead of printing two whole records to compare by eye.
 */
public final class SettingsDiff {
  private SettingsDiff() {}

  /**
   * The components of two records of the same type that differ, nested records followed
   * component by component ({@code privacy.epsilon}).
   *
   * @return e.g. {@code "privacy.epsilon: 1.0 in the state directory, 2.0 configured"}, one per
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
      out.add(line(prefix.substring(0, Math.max(0, prefix.length() - 1)), a, b));
    }
  }

  private static Object value(RecordComponent c, Record r) {
    try {
      return c.getAccessor().invoke(r);
    } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
      throw new IllegalStateException("cannot read " + c.getName() + " of " + r.getClass(), e);
    }
  }
}
