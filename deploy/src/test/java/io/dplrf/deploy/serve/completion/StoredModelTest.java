package io.dplrf.deploy.serve.completion;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.io.Json;
import io.dplrf.ingest.RatingsStore;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The stored model's byte format ({@link StoredModel}): the golden files of every version stay
 * readable and serve the same public part and predictions; version 2 is re-encoded bit for bit;
 * a stored model that does not parse exactly is refused with a message naming it.
 */
class StoredModelTest {
  private static final List<RatingsStore.UserRatings> USERS = List.of(
      new RatingsStore.UserRatings(0, new int[0], new double[0]),
      new RatingsStore.UserRatings(1, new int[] {0, 2}, new double[] {5, 1.5}),
      new RatingsStore.UserRatings(2, new int[] {1, 2, 3}, new double[] {4.5, 0.5, 3}));

  static byte[] golden(String name) throws IOException {
    try (InputStream in = StoredModelTest.class.getResourceAsStream("/golden/" + name)) {
      return in.readAllBytes();
    }
  }

  private static void assertServesAs(CompletionRuns.Model expected, CompletionRuns.Model got) {
    assertEquals(Json.write(expected.publicJson()), Json.write(got.publicJson()));
    for (RatingsStore.UserRatings u : USERS) {
      assertArrayEquals(expected.scores(u), got.scores(u), 0.0, "user " + u.user());
    }
  }

  @Test
  void goldenVersion2Biased_isReadAndReencodedBitForBit() throws IOException {
    byte[] bytes = golden("completion-model-v2-biased.bin");
    ServedBiasedModel back = assertInstanceOf(ServedBiasedModel.class,
        StoredModel.decode(bytes, -1, 1)); // the configured scale is not used: v2 stores its own
    assertServesAs(GoldenModels.biased(), back);
    assertArrayEquals(bytes, back.encode());
    assertEquals(0.5, back.model().ratingMin());
    assertTrue(back.model().residual().isPresent());
    assertEquals(2, back.model().account().orElseThrow().components().size());
    // A user without ratings gets clamp(g + b_j): g + b_2 = 5.625 is served as the top, 5.
    double[] empty = back.scores(USERS.get(0));
    assertArrayEquals(new double[] {4.375, 5, 3.375, 4.125}, empty, 0.0);
  }

  @Test
  void goldenVersion2FrankWolfe_isReadAndReencodedBitForBit() throws IOException {
    byte[] bytes = golden("completion-model-v2-fw.bin");
    CompletionRuns.Model back = StoredModel.decode(bytes, -1, 1);
    assertServesAs(GoldenModels.frankWolfeServed(), back);
    assertArrayEquals(bytes, back.encode());
  }

  /**
   * Version 1 (Frank–Wolfe alone) carries no rating scale: it is served as it was fitted,
   * clamped to the configured scale, and re-stored as version 2.
   */
  @Test
  void goldenVersion1_isServedClampedToTheConfiguredScale() throws IOException {
    byte[] bytes = golden("completion-model-v1.bin");
    CompletionRuns.Model back = StoredModel.decode(bytes, 0.5, 5);
    ServedFrankWolfeModel expected = new ServedFrankWolfeModel(GoldenModels.frankWolfe(),
        GoldenModels.V1_OFFSET, 0.5, 5);
    assertServesAs(expected, back);
    assertEquals("fw", back.publicJson().get("model"));
    byte[] v2 = back.encode();
    assertArrayEquals(StoredModel.MAGIC_V2, Arrays.copyOf(v2, 8));
    assertServesAs(expected, StoredModel.decode(v2, 0.5, 5));
    // The scale matters: on [2.75, 2.75 + 1e-3] every score is clamped into it.
    for (double s : StoredModel.decode(bytes, 2.75, 2.751).scores(USERS.get(2))) {
      assertTrue(s >= 2.75 && s <= 2.751, "" + s);
    }
  }

  @Test
  void aStoredModelThatDoesNotParseExactly_isRefusedWithAMessageNamingIt() throws IOException {
    byte[] bytes = golden("completion-model-v2-biased.bin");
    for (int len = 0; len < bytes.length; len += 7) {
      byte[] cut = Arrays.copyOf(bytes, len);
      IOException e = assertThrows(IOException.class, () -> StoredModel.decode(cut, 0, 1),
          "cut at " + len);
      assertTrue(e.getMessage().startsWith("stored completion model (completion/model) cannot"
          + " be read"), e.getMessage());
    }
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertTrue(assertThrows(IOException.class, () -> StoredModel.decode(longer, 0, 1))
        .getMessage().contains("1 trailing bytes"));
    byte[] other = bytes.clone();
    other[7] = '9';
    assertTrue(assertThrows(IOException.class, () -> StoredModel.decode(other, 0, 1))
        .getMessage().contains("unknown format DPLRFCM9"));
    byte[] kind = bytes.clone();
    kind[8] = 'X';
    assertTrue(assertThrows(IOException.class, () -> StoredModel.decode(kind, 0, 1))
        .getMessage().contains("unknown model kind"));
  }
}
