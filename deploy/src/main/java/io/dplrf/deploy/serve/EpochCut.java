package io.dplrf.deploy.serve;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.config.SettingsDiff;
import io.dplrf.deploy.config.Source;
import io.dplrf.sketch.files.StateFiles;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;

/**
 * The settings that cut the stream into epochs — {@code epoch-updates} with {@code
 * epoch-idle-seconds}, or {@code epoch-seconds} — pinned in {@code <state-dir>/epoch-cut} at the
 * first start, and compared at every later one.
 *
 * <p>Why: the privacy argument compares neighbouring streams cut into the same epochs
 * (docs/privacy/continual-release.md §7), and the T releases and the tree's noise are spent per
 * epoch. A run whose cut changes on a restart releases epochs of another length than the ones it
 * was planned and announced for, so a change is refused like a change of ε: keep the settings,
 * or start a new run in a new state directory. The refusal names only the settings that differ.
 *
 * <p>A state directory without the file (a run started by a build that did not pin its cut)
 * takes the configured cut and pins it. The file is text ({@code name=value} lines), written
 * crash-safely (temp file, fsync, rename, fsync of the directory).
 *
 * @param settings the cut's settings by name, values in the canonical text of their unit
 * @param defaulted those of them not given, which took their default: a refusal says how to keep
 *     the pinned value (a default can differ from the one the run was started with)
 */
public record EpochCut(Map<String, String> settings, Set<String> defaulted) {
  /** The file's name in the state directory. */
  public static final String FILE = "epoch-cut";

  public EpochCut {
    settings = Map.copyOf(settings);
    defaulted = Set.copyOf(defaulted);
  }

  /** The cut the configuration asks for. */
  public static EpochCut of(ServiceConfig config) {
    Map<String, String> s = new LinkedHashMap<>();
    if (config.epochUpdates().isPresent()) {
      s.put("epoch-updates", Long.toString(config.epochUpdates().getAsLong()));
      s.put("epoch-idle-seconds", seconds(config.epochIdle()));
    } else {
      s.put("epoch-seconds", seconds(config.epochDuration().orElseThrow()));
    }
    Set<String> defaulted = new HashSet<>();
    for (String name : s.keySet()) {
      if (config.source(name) == Source.DEFAULT) {
        defaulted.add(name);
      }
    }
    return new EpochCut(s, defaulted);
  }

  private static String seconds(Duration d) {
    return BigDecimal.valueOf(d.toNanos(), 9).stripTrailingZeros().toPlainString();
  }

  /**
   * Refuses a state directory whose pinned cut differs from this one; nothing if it has none.
   *
   * @throws IOException naming the file and each setting that differs, with both values
   */
  public void check(Path stateDir) throws IOException {
    Path file = stateDir.resolve(FILE);
    if (!Files.exists(file)) {
      return;
    }
    Properties p = new Properties();
    p.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
    List<String> names = new ArrayList<>(settings.keySet());
    for (String n : p.stringPropertyNames()) {
      if (!names.contains(n)) {
        names.add(n);
      }
    }
    List<String> differ = new ArrayList<>();
    for (String n : names) {
      if (!Objects.equals(p.getProperty(n), settings.get(n))) {
        differ.add(SettingsDiff.line(n, p.getProperty(n), settings.get(n))
            + (defaulted.contains(n) && p.getProperty(n) != null
                ? " by default: give " + n + " " + p.getProperty(n) + " to keep this run's cut"
                : ""));
      }
    }
    if (!differ.isEmpty()) {
      throw new IOException("the state directory's run cuts its epochs with other settings ("
          + String.join("; ", differ) + ", pinned in " + file + "); the epoch cut defines which"
          + " neighbouring streams the releases protect and what each of the T releases covers:"
          + " keep the settings, or use a new state directory for a new run");
    }
  }

  /** Writes the file unless it exists; call once the state directory is known to be usable. */
  public void pin(Path stateDir) throws IOException {
    Path file = stateDir.resolve(FILE);
    Path tmp = stateDir.resolve(FILE + ".tmp");
    Files.deleteIfExists(tmp); // left by a crash during the write
    if (Files.exists(file)) {
      return;
    }
    StringBuilder text = new StringBuilder("# the epoch cut of this run: changing it is refused"
        + " (a new run needs a new state directory)\n");
    settings.entrySet().stream().sorted(Map.Entry.comparingByKey())
        .forEach(e -> text.append(e.getKey()).append('=').append(e.getValue()).append('\n'));
    try (FileChannel ch = StateFiles.createForWriting(tmp)) {
      ByteBuffer b = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    } catch (IOException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    StateFiles.fsyncDirectory(stateDir);
  }
}
