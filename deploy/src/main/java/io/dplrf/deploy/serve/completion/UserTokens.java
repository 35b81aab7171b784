package io.dplrf.deploy.serve.completion;

import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.SecretKey;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Per-user access tokens of mode completion: user u's token is base64url(HMAC-SHA256(K_tok,
 * "dplrf/v1/user-token/" + u)), where K_tok is 32 bytes of the keyed stream {@value #LABEL} of
 * the service's secret key (AES-CTR under HMAC-SHA256(key, label): a pseudorandom key that no
 * other stream shares). Nothing per user is stored; the operator issues a token by recomputing
 * it, and the service verifies one the same way, comparing in constant time ({@link
 * MessageDigest#isEqual}: the time depends on the length only, which is public).
 *
 * <p>Without the secret key, a token for one user says nothing about another's (HMAC is a PRF).
 * Tokens cannot be revoked one by one: they live as long as the key. Immutable; thread-safe.
 */
final class UserTokens {
  static final String LABEL = "completion/user-tokens/v1";
  private static final String MESSAGE = "dplrf/v1/user-token/";
  private final SecretKeySpec macKey;

  UserTokens(SecretKey key) {
    byte[] k = new byte[32];
    KeyStream.of(key, LABEL).fill(0, k, 0, k.length);
    macKey = new SecretKeySpec(k, "HmacSHA256");
    Arrays.fill(k, (byte) 0);
  }

  /** User {@code user}'s token: 43 characters of base64url without padding. */
  String issue(int user) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(macKey);
      byte[] tag = mac.doFinal((MESSAGE + user).getBytes(StandardCharsets.US_ASCII));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(tag);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required of every Java platform", e);
    }
  }

  /** Whether {@code token} is {@code user}'s, in time independent of where they differ. */
  boolean valid(int user, String token) {
    return token != null && MessageDigest.isEqual(issue(user).getBytes(StandardCharsets.US_ASCII),
        token.getBytes(StandardCharsets.UTF_8));
  }
}
