package io.dplrf.deploy.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class AcceptTest {
  private static final List<String> RELEASE = List.of("application/json", "application/x-npy",
      "application/zip");
  private static final List<String> JSON = List.of("application/json");

  @Test
  void noHeader_acceptsTheRoutesFirstType() {
    assertEquals("application/json", Accept.best(null, RELEASE));
    assertEquals("application/json", Accept.best("  ", RELEASE));
  }

  @Test
  void highestQualityWins_thenTheMoreSpecificRange_thenTheRoutesOrder() {
    assertEquals("application/x-npy", Accept.best("application/x-npy", RELEASE));
    assertEquals("application/json", Accept.best("application/json, application/x-npy", RELEASE));
    assertEquals("application/x-npy", Accept.best("application/json;q=0.4, application/x-npy;q=0.5",
        RELEASE));
    assertEquals("application/x-npy", Accept.best("*/*;q=1, application/x-npy", RELEASE));
    assertEquals("application/json", Accept.best("application/*", RELEASE));
    assertEquals("application/zip", Accept.best("APPLICATION/ZIP; charset=x", RELEASE));
  }

  @Test
  void qZero_refusesAType_evenUnderAWildcard() {
    assertEquals("application/x-npy", Accept.best("*/*, application/json;q=0", RELEASE));
    assertNull(Accept.best("application/json;q=0", JSON));
    assertNull(Accept.best("*/*;q=0", JSON));
    assertNull(Accept.best("application/*;q=0, */*", JSON), "the more specific range rules");
  }

  @Test
  void nothingAcceptable_isNull() {
    assertNull(Accept.best("image/png", JSON));
    assertNull(Accept.best("text/*", JSON));
    assertNull(Accept.best("garbage, also/bad/slash, */json", JSON), "malformed ranges are skipped");
  }

  @Test
  void oldJavaClients_loneStarAndLeadingDotQualities_areUnderstood() {
    // HttpURLConnection's default Accept.
    assertEquals("application/json",
        Accept.best("text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2", JSON));
    assertEquals("application/json", Accept.best("application/json; q=x", JSON),
        "an unreadable q counts as 1, not as a refusal");
  }
}
