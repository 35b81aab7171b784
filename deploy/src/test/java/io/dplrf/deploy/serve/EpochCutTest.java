package io.dplrf.deploy.serve;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.dplrf.deploy.config.ServiceConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EpochCutTest {
  @TempDir Path dir;

  private static EpochCut cut(String... epochSettings) {
    String[] base = {"--rows", "100", "--cols", "50", "--rank", "5", "--epsilon", "1", "--delta",
        "1e-6", "--epochs", "16"};
    String[] args = new String[base.length + epochSettings.length];
    System.arraycopy(base, 0, args, 0, base.length);
    System.arraycopy(epochSettings, 0, args, base.length, epochSettings.length);
    return EpochCut.of(ServiceConfig.load(args, 0, Map.of()));
  }

  @Test
  void pinnedAtFirstStart_thenTheSameCutPasses_andNothingIsRewritten() throws IOException {
    EpochCut byCount = cut("--epoch-updates", "50000", "--epoch-idle-seconds", "2.5");
    byCount.check(dir); // nothing pinned yet
    byCount.pin(dir);
    Path file = dir.resolve(EpochCut.FILE);
    String text = Files.readString(file);
    assertTrue(text.contains("epoch-updates=50000\n") && text.contains("epoch-idle-seconds=2.5\n"),
        text);
    assertDoesNotThrow(() -> cut("--epoch-updates", "50000", "--epoch-idle-seconds", "2.50")
        .check(dir));
    byCount.pin(dir);
    assertEquals(text, Files.readString(file));
    assertFalse(Files.exists(dir.resolve(EpochCut.FILE + ".tmp")));
  }

  /**
   * A run pinned with an idle close other than today's default (0, as runs of an older build):
   * the refusal says how to keep the run's cut when the setting was left at its default.
   */
  @Test
  void aDefaultThatDiffersFromThePin_isRefused_sayingWhichValueKeepsTheCut() throws IOException {
    cut("--epoch-updates", "50000", "--epoch-idle-seconds", "0").pin(dir);
    String message = assertThrows(IOException.class, () -> cut("--epoch-updates", "50000")
        .check(dir)).getMessage();
    assertTrue(message.contains("(epoch-idle-seconds: 0 in the state directory, 300 configured"
        + " by default: give epoch-idle-seconds 0 to keep this run's cut, pinned in "), message);
    String given = assertThrows(IOException.class, () -> cut("--epoch-updates", "50000",
        "--epoch-idle-seconds", "30").check(dir)).getMessage();
    assertFalse(given.contains("by default"), "a value given is not a default: " + given);
  }

  @Test
  void aChangedCount_orASwitchToTheClock_isRefused_namingOnlyWhatDiffers() throws IOException {
    cut("--epoch-updates", "50000").pin(dir);
    String count = assertThrows(IOException.class,
        () -> cut("--epoch-updates", "10000").check(dir)).getMessage();
    assertTrue(count.startsWith("the state directory's run cuts its epochs with other settings"
        + " (epoch-updates: 50000 in the state directory, 10000 configured, pinned in "), count);
    String idle = assertThrows(IOException.class,
        () -> cut("--epoch-updates", "50000", "--epoch-idle-seconds", "30").check(dir))
        .getMessage();
    assertTrue(idle.contains("(epoch-idle-seconds: 300 in the state directory, 30 configured,"),
        idle);
    assertFalse(idle.contains("epoch-updates:"), idle);
    String clock = assertThrows(IOException.class,
        () -> cut("--epoch-seconds", "3600").check(dir)).getMessage();
    assertTrue(clock.contains("epoch-seconds: unset in the state directory, 3600 configured")
        && clock.contains("epoch-updates: 50000 in the state directory, unset configured")
        && clock.contains("epoch-idle-seconds: 300 in the state directory, unset configured"),
        clock);
  }
}
