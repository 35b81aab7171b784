package io.dplrf.sketch.tree;

import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.lra.NoiseDerivation;
import io.dplrf.sketch.params.NeighbouringRelation;
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
    for (Mechanism m : Mechanism.of(Mechanism.Use.LOW_RANK_STREAM)) {
      write(dir, m, TreeConfig.defaultRelation(m));
      if (m == Mechanism.PRIV2 || m == Mechanism.PRIV2_SPARSE) {
        write(dir, m, NeighbouringRelation.ENTRYWISE_L1);
      }
    }
  }

  private static void write(Path dir, Mechanism m, NeighbouringRelation relation)
      throws IOException {
    Path f = dir.resolve(TreeCodecTest.goldenName(m, relation, TreeCodec.VERSION));
    if (Files.exists(f)) {
      return; // golden files are never rewritten: only a new mechanism's file is added
    }
    try (OutputStream out = Files.newOutputStream(f)) {
      TreeCodecTest.golden(m, relation, NoiseDerivation.CURRENT).writeTo(out);
    }
  }
}
