package io.dplrf.sketch.continual;

import io.dplrf.sketch.factorization.BltOptimizer;
import io.dplrf.sketch.factorization.BltParameters;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.params.NeighbouringRelation;
import io.dplrf.sketch.params.SketchSizes;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the golden BLT snapshots of the current format version: per mechanism, a directory
 * {@code blt-<mechanism>-v<version>} holding the snapshot ({@link #SNAPSHOT}) and the state files
 * it names. Run by hand only when a new version is introduced (old golden directories are kept,
 * never rewritten): {@code java -cp ... io.dplrf.sketch.continual.BltGoldenSnapshots
 * sketch-store/src/test/resources/golden}.
 */
final class BltGoldenSnapshots {
  static final String SNAPSHOT = "snapshot.blt";
  static final SketchSizes SIZES = new SketchSizes(12, 9, 2, 4, 8);
  static final int T = 6;
  static final int PER_EPOCH = 12;

  private BltGoldenSnapshots() {}

  static String directoryName(Mechanism mech, int version) {
    return "blt-" + mech.cliName() + "-v" + version;
  }

  static BltConfig config(Mechanism mech) {
    return new BltConfig(mech, NeighbouringRelation.ENTRYWISE_L1, SIZES, BltFixtures.PRIVACY, 2.0,
        T, false);
  }

  static String instance(Mechanism mech) {
    return "golden/blt-" + mech.cliName();
  }

  /** The golden content: epochs 1 and 2 closed, half of epoch 3's updates in the accumulator. */
  static void feedUntilMidEpoch3(BltStream s) {
    for (int e = 1; e <= 2; e++) {
      BltFixtures.feed(s, e, 0, PER_EPOCH);
      s.closeEpoch();
    }
    BltFixtures.feed(s, 3, 0, PER_EPOCH / 2);
  }

  /** The rest of the stream after the golden content, to epoch T, each close committed. */
  static void finish(BltStream s) {
    BltFixtures.feed(s, 3, PER_EPOCH / 2, PER_EPOCH);
    BltFixtures.closeAndCommit(s);
    while (!s.exhausted()) {
      BltFixtures.feed(s, s.epochsClosed() + 1, 0, PER_EPOCH);
      BltFixtures.closeAndCommit(s);
    }
  }

  /** The golden content on {@code files}, with the given parameters. */
  static BltStream golden(Mechanism mech, BltFiles files, BltParameters parameters)
      throws IOException {
    BltStream s = BltStream.create(config(mech), BltFixtures.KEY, instance(mech), files,
        parameters);
    feedUntilMidEpoch3(s);
    return s;
  }

  public static void main(String[] args) throws IOException {
    for (Mechanism mech : new Mechanism[] {Mechanism.PRIV2_SPARSE, Mechanism.PRIV2}) {
      Path dir = Path.of(args[0]).resolve(directoryName(mech, BltCodec.VERSION));
      if (Files.exists(dir)) {
        continue; // golden files are never rewritten
      }
      BltStream s = golden(mech, BltFiles.directory(dir), BltOptimizer.optimize(T));
      try (OutputStream out = Files.newOutputStream(dir.resolve(SNAPSHOT))) {
        s.writeTo(out);
      }
    }
  }
}
