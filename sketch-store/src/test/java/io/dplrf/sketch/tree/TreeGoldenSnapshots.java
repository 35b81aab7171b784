package io.dplrf.sketch.tree;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the golden tree snapshots of the current format version. Run by hand only when a new
 * version is introduced (old golden files are kept, never rewritten):
 * {@code java -cp ... io.dplrf.sketch.tree.TreeGoldenSnapshots sketch-store/src/test/resources/golden}.
 */
final class TreeGoldenSnapshots {
  private TreeGoldenSnapshots() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    Files.createDirectories(dir);
    for (StreamMechanism m : StreamMechanism.values()) {
      Path f = dir.resolve("tree-" + m.cliName() + "-v" + TreeCodec.VERSION + ".snapshot");
      if (Files.exists(f)) {
        continue; // golden files are never rewritten: only a new mechanism's file is added
      }
      try (OutputStream out = Files.newOutputStream(f)) {
        TreeCodecTest.golden(m).writeTo(out);
      }
    }
  }
}
