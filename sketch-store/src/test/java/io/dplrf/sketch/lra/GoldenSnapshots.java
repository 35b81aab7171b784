package io.dplrf.sketch.lra;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the golden snapshot files of the current format version into a directory. Run by hand
 * only when a new format version is introduced (old golden files are kept, never rewritten):
 * {@code java -cp ... io.dplrf.sketch.lra.GoldenSnapshots sketch-store/src/test/resources/golden}.
 */
final class GoldenSnapshots {
  private GoldenSnapshots() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    Files.createDirectories(dir);
    int v = SketchCodec.VERSION;
    try (OutputStream out = Files.newOutputStream(dir.resolve("priv1-v" + v + ".sketch"))) {
      SketchCodec.write(SketchCodecTest.priv1(), out);
    }
    try (OutputStream out = Files.newOutputStream(dir.resolve("priv2-v" + v + ".sketch"))) {
      SketchCodec.write(SketchCodecTest.priv2(), out);
    }
  }
}
