package io.dplrf.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The log's account of dead letters, on a clock the test moves. */
class DeadLetterLogTest {
  private long now = 1_000_000;
  private final List<String> lines = new ArrayList<>();
  private final DeadLetterLog log = new DeadLetterLog("t.dead-letter", () -> now, lines::add);

  private void letter(DeadLetterReason reason, long offset) {
    log.deadLettered(reason, "t", 0, offset, "update 3: row index 64 is outside [0, 64)", 64);
  }

  @Test
  void firstOfEachReason_isOneWarningWithReasonOffsetRangeAndHint() {
    letter(DeadLetterReason.INDEX_OUT_OF_RANGE, 17);
    assertEquals(1, lines.size(), "" + lines);
    String first = lines.get(0);
    assertTrue(first.startsWith("dead letter (index_out_of_range) t-0@17: update 3: row index 64"
        + " is outside [0, 64); the whole record (64 updates) went to t.dead-letter."), first);
    assertTrue(first.contains("indices are 0-based"), first);

    letter(DeadLetterReason.INDEX_OUT_OF_RANGE, 18);
    assertEquals(1, lines.size(), "a second of the same reason is only counted: " + lines);
    log.deadLettered(DeadLetterReason.NON_FINITE_DELTA, "t", 2, 5, "update 0: delta NaN is not"
        + " finite", 1);
    assertEquals(2, lines.size(), "" + lines);
    assertTrue(lines.get(1).startsWith("dead letter (non_finite_delta) t-2@5: update 0: delta NaN"
        + " is not finite; the whole record went to t.dead-letter. Hint: every delta must be"), lines.get(1));
  }

  @Test
  void laterOnes_areSummedUpAtMostOncePerMinute_withCountsSinceTheLastLine() {
    letter(DeadLetterReason.INDEX_OUT_OF_RANGE, 0);
    for (int k = 1; k <= 1000; k++) {
      now += 59; // 1000 letters over 59 s: no minute since the first warning
      letter(DeadLetterReason.INDEX_OUT_OF_RANGE, k);
      log.tick();
    }
    assertEquals(1, lines.size(), "" + lines);
    now += 1000; // 60 s since the first warning
    log.tick();
    assertEquals(2, lines.size(), "" + lines);
    assertEquals("dead letters since the previous dead-letter line: 1000 more records to"
        + " t.dead-letter (index_out_of_range 1000); exact counts at /admin/ingest", lines.get(1));

    // The next minute: the counts start again from the last line; a new reason warns at once.
    now += 30_000;
    letter(DeadLetterReason.INDEX_OUT_OF_RANGE, 1001);
    log.deadLettered(DeadLetterReason.BAD_LENGTH, "t", 0, 1002, "length 15 is not a positive"
        + " multiple of 16", 0);
    letter(DeadLetterReason.INDEX_OUT_OF_RANGE, 1003);
    assertEquals(3, lines.size(), "" + lines);
    now += 59_999; // a minute after the BAD_LENGTH warning, less one millisecond
    log.tick();
    assertEquals(3, lines.size(), "" + lines);
    now += 1;
    letter(DeadLetterReason.INDEX_OUT_OF_RANGE, 1004); // the dead-letter path ticks too
    assertEquals(4, lines.size(), "" + lines);
    assertEquals("dead letters since the previous dead-letter line: 3 more records to"
        + " t.dead-letter (index_out_of_range 3); exact counts at /admin/ingest", lines.get(3));

    // Nothing pending: no line, however long the wait.
    now += 3_600_000;
    log.tick();
    log.summarize(" (epoch 2 closes)");
    assertEquals(4, lines.size(), "" + lines);
  }

  @Test
  void epochClose_summarizesWhatIsPending_beforeTheMinute() {
    letter(DeadLetterReason.INDEX_OUT_OF_RANGE, 0);
    letter(DeadLetterReason.INDEX_OUT_OF_RANGE, 1);
    log.deadLettered(DeadLetterReason.NON_FINITE_DELTA, "t", 0, 2, "delta NaN", 64);
    log.deadLettered(DeadLetterReason.NON_FINITE_DELTA, "t", 0, 3, "delta NaN", 64);
    letter(DeadLetterReason.INDEX_OUT_OF_RANGE, 4);
    now += 5;
    log.summarize(" (epoch 1 closes)");
    assertEquals(3, lines.size(), "" + lines);
    assertEquals("dead letters since the previous dead-letter line (epoch 1 closes): 3 more records"
        + " to t.dead-letter (index_out_of_range 2, non_finite_delta 1); exact counts at"
        + " /admin/ingest", lines.get(2));
    // The summary restarts the minute.
    letter(DeadLetterReason.INDEX_OUT_OF_RANGE, 5);
    now += 59_999;
    log.tick();
    assertEquals(3, lines.size(), "" + lines);
    now += 1;
    log.tick();
    assertEquals(4, lines.size(), "" + lines);
    assertTrue(lines.get(3).contains(": 1 more record to t.dead-letter (index_out_of_range 1)"),
        lines.get(3));
  }

  @Test
  void everyReason_hasAHint() {
    for (DeadLetterReason r : DeadLetterReason.values()) {
      assertTrue(DeadLetterLog.hint(r).length() > 20, r + ": " + DeadLetterLog.hint(r));
    }
  }

  /** Mode completion refuses clip: its hint names the settings that bound a rating there. */
  @Test
  void ratingOutOfRange_hintNamesTheRatingScale_notClip() {
    String hint = DeadLetterLog.hint(DeadLetterReason.RATING_OUT_OF_RANGE);
    assertTrue(hint.contains("[rating-min, rating-max]"), hint);
    assertTrue(!hint.contains("clip"), hint);
  }
}
