package io.dplrf.deploy.serve.completion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.sketch.randomness.SecretKey;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class UserTokensTest {
  private final UserTokens tokens = new UserTokens(SecretKey.forTesting(1));

  @Test
  void token_isDerivedPerUser_andOnlyItsUsersIsValid() {
    Set<String> seen = new HashSet<>();
    for (int u = 0; u < 1000; u++) {
      String t = tokens.issue(u);
      assertEquals(43, t.length(), "256-bit HMAC, base64url without padding");
      assertTrue(seen.add(t), "distinct per user");
      assertEquals(t, tokens.issue(u), "derived, not stored: stable");
      assertTrue(tokens.valid(u, t));
      assertFalse(tokens.valid(u + 1, t), "another user's token");
    }
    String t = tokens.issue(7);
    assertFalse(tokens.valid(7, t.substring(1)));
    assertFalse(tokens.valid(7, t + "A"));
    assertFalse(tokens.valid(7, t.toUpperCase()));
    assertFalse(tokens.valid(7, ""));
    assertFalse(tokens.valid(7, null));
  }

  @Test
  void token_dependsOnTheSecretKey() {
    assertNotEquals(tokens.issue(7), new UserTokens(SecretKey.forTesting(2)).issue(7));
    assertEquals(tokens.issue(7), new UserTokens(SecretKey.forTesting(1)).issue(7));
  }
}
