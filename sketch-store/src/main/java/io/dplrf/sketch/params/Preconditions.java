package io.dplrf.sketch.params;

/**
 * One helper and one message shape for every parameter check (after Google DP's
 * {@code DpPreconditions}): "{name} must be {condition}. Provided value: {value}".
 */
public final class Preconditions {
  private Preconditions() {}

  public static double checkPositiveFinite(String name, double value) {
    if (!(value > 0) || Double.isInfinite(value)) {
      throw invalid(name, "> 0 and < infinity", value);
    }
    return value;
  }

  public static double checkOpenUnit(String name, double value) {
    if (!(value > 0 && value < 1)) {
      throw invalid(name, "in the open interval (0, 1)", value);
    }
    return value;
  }

  public static int checkPositive(String name, int value) {
    if (value <= 0) {
      throw invalid(name, "> 0", value);
    }
    return value;
  }

  public static void check(boolean condition, String name, String requirement, Object value) {
    if (!condition) {
      throw invalid(name, requirement, value);
    }
  }

  public static IllegalArgumentException invalid(String name, String requirement, Object value) {
    return new IllegalArgumentException(
        name + " must be " + requirement + ". Provided value: " + value);
  }
}
