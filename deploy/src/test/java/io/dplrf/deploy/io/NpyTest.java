package io.dplrf.deploy.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NpyTest {
  @TempDir Path dir;

  @Test
  void preamble_hasExactHeaderBytesPaddedToMultipleOf64() {
    byte[] p = Npy.preamble(new int[] {3, 2});
    String dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }";
    assertEquals(128, p.length); // 10 + 60 + 1 > 64: as NumPy's own header for this shape
    assertArrayEquals(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0},
        Arrays.copyOf(p, 10));
    assertEquals(dict + " ".repeat(128 - 10 - dict.length() - 1) + "\n",
        new String(p, 10, p.length - 10, StandardCharsets.US_ASCII));
  }

  @Test
  void preamble_oneDimensionalShapeIsWrittenWithTrailingComma() {
    String h = new String(Npy.preamble(new int[] {7}), StandardCharsets.US_ASCII);
    assertEquals(true, h.contains("'shape': (7,), }"), h);
  }

  @Test
  void preamble_lengthIsMultipleOf64AndEndsWithNewlineForAllShapeWidths() {
    for (int a = 1; a < 1_000_000_000 && a > 0; a = a * 10 + 1) {
      for (int[] shape : new int[][] {{a}, {a, a}, {a, 3, a}, {}}) {
        byte[] p = Npy.preamble(shape);
        assertEquals(0, p.length % 64, Arrays.toString(shape));
        assertEquals('\n', p[p.length - 1], Arrays.toString(shape));
        int declared = ByteBuffer.wrap(p, 8, 2).order(ByteOrder.LITTLE_ENDIAN).getShort();
        assertEquals(p.length - 10, declared, Arrays.toString(shape));
      }
    }
  }

  @Test
  void writeThenRead_roundTripsValuesAndShape() throws IOException {
    double[] data = new double[3 * 10_000];
    for (int i = 0; i < data.length; i++) {
      data[i] = Math.sin(i) * 1e300 / (i + 1);
    }
    data[0] = -0.0;
    data[1] = Double.MIN_VALUE;
    data[2] = Double.NaN;
    Path f = dir.resolve("U.npy");
    Npy.writeDoubles(f, data, 10_000, 3);
    int[] shape = new int[2];
    assertArrayEquals(data, Npy.readDoubles(f, shape));
    assertArrayEquals(new int[] {10_000, 3}, shape);
    assertEquals(128 + 8L * data.length, Files.size(f));

    Npy.writeDoubles(f, new double[] {1, 2}, 2); // replaces
    int[] one = new int[1];
    assertArrayEquals(new double[] {1, 2}, Npy.readDoubles(f, one));
    assertArrayEquals(new int[] {2}, one);
  }

  @Test
  void write_rejectsShapeNotMatchingData() {
    Path f = dir.resolve("x.npy");
    assertThrows(IllegalArgumentException.class, () -> Npy.writeDoubles(f, new double[5], 2, 3));
    assertThrows(IllegalArgumentException.class, () -> Npy.writeDoubles(f, new double[0], -1));
  }

  @Test
  void read_rejectsTruncatedAndWrongDimensionFiles() throws IOException {
    Path f = dir.resolve("x.npy");
    Npy.writeDoubles(f, new double[6], 2, 3);
    assertThrows(IOException.class, () -> Npy.readDoubles(f, new int[1]));
    byte[] all = Files.readAllBytes(f);
    Files.write(f, Arrays.copyOf(all, all.length - 1));
    assertThrows(IOException.class, () -> Npy.readDoubles(f, null));
    Files.write(f, "not npy at all".getBytes(StandardCharsets.US_ASCII));
    assertThrows(IOException.class, () -> Npy.readDoubles(f, null));
  }

  @Test
  void numpy_readsOurFilesAndWeReadItsFiles() throws Exception {
    assumeTrue(python("import numpy") == 0, "python3 with numpy not available");
    Path ours = dir.resolve("ours.npy");
    Npy.writeDoubles(ours, new double[] {1.5, -2, 3e-300, 4, 5, 6}, 2, 3);
    assertEquals(0, python("import numpy as np; a = np.load('" + ours + "');"
        + " assert a.dtype == np.float64 and a.shape == (2, 3), a;"
        + " assert (a == np.array([[1.5, -2, 3e-300], [4, 5, 6]])).all(), a"));
    Path theirs = dir.resolve("theirs.npy");
    assertEquals(0, python("import numpy as np; np.save('" + theirs + "',"
        + " np.arange(12, dtype='<f8').reshape(4, 3) / 4)"));
    int[] shape = new int[2];
    double[] a = Npy.readDoubles(theirs, shape);
    assertArrayEquals(new int[] {4, 3}, shape);
    for (int i = 0; i < 12; i++) {
      assertEquals(i / 4.0, a[i]);
    }
  }

  private static int python(String code) {
    try {
      Process p = new ProcessBuilder("python3", "-c", code).inheritIO().start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return -1;
      }
      return p.exitValue();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
