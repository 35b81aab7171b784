package io.dplrf.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PromQlTest {

  private static List<String> names(String expr) {
    return List.copyOf(PromQl.metricNames(expr));
  }

  @Test
  void rateOverGrafanaInterval_yieldsTheCounterOnly() {
    assertEquals(List.of("dplrf_updates_applied_total"),
        names("rate(dplrf_updates_applied_total{job=\"dplrf\"}[$__rate_interval])"));
  }

  @Test
  void labelListsOfGroupingAndVectorMatching_areNotMetricNames() {
    assertEquals(List.of("x_count", "y_total"), names(
        "sum by (route, status) (rate(x_count{status=~\"4..|5..\"}[5m]))"
            + " / ignoring(status) group_left(route) sum without (instance) (y_total) by (le)"));
    assertEquals(List.of("a", "b"), names("a and on(instance) b"));
  }

  @Test
  void stringsHoldingBracesParenthesesAndDollars_areSkippedWhole() {
    assertEquals(List.of("up"), names("label_replace(up, \"dst\", \"$1\", \"src\", \"(.*)\")"));
    assertEquals(List.of("x"), names("sum(x{l=\"}\", m='{[', n=`x\\`}) without (a)"));
  }

  @Test
  void numbersDurationsKeywordsAndModifiers_areNotMetricNames() {
    assertEquals(List.of("foo", "bar"), names("1e-6 * foo offset 1h30m + 0x1F - Inf > bool NaN or bar @ start()"));
    assertEquals(List.of("jvm_memory_max_bytes"), names("sum by (area) (jvm_memory_max_bytes > 0)"));
  }

  @Test
  void subqueriesAndGrafanaVariablesOfEveryForm_areSkipped() {
    assertEquals(List.of("foo"), names("max_over_time(foo[1h:5m])"));
    assertEquals(List.of("up"), names("up{job=\"$job\"} * ${factor} + [[legacy]] - $x"));
  }

  @Test
  void histogramQuantile_selectsTheBucketSeries() {
    assertEquals(Set.of("h_seconds_bucket"),
        PromQl.metricNames("histogram_quantile(0.99, sum by (le) (rate(h_seconds_bucket[5m])))"));
  }

  @Test
  void unknownFunction_isAnError_notSilentlyDropped() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PromQl.metricNames("frobnicate(dplrf_updates_applied_total)"));
    assertEquals("unknown PromQL function 'frobnicate' in: frobnicate(dplrf_updates_applied_total)",
        e.getMessage());
  }

  @Test
  void selectorByName_andUnbalancedBrackets_areErrors() {
    assertThrows(IllegalArgumentException.class, () -> PromQl.metricNames("{__name__=\"x\"}"));
    assertThrows(IllegalArgumentException.class, () -> PromQl.metricNames("rate(x[5m)"));
  }
}
