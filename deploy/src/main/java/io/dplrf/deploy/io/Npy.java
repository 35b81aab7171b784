package io.dplrf.deploy.io;

import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NumPy {@code .npy} files of float64 (NEP 1, "A Simple File Format for NumPy Arrays"; layout as
 * written by {@code numpy.lib.format.write_array}):
 *
 * <pre>
 * offset  size  content
 *      0     6  magic "\x93NUMPY"
 *      6     2  version 1, 0
 *      8     2  header length H, little-endian uint16
 *     10     H  "{'descr': '&lt;f8', 'fortran_order': False, 'shape': (m, k), }" + spaces + "\n"
 *   10+H        data: little-endian float64, C (row-major) order
 * </pre>
 *
 * 10 + H is a multiple of 64, as NumPy's writer pads it (the format only requires 16), so the
 * data is aligned for memory mapping. A 1-D shape is written {@code (k,)}.
 */
public final class Npy {
  private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
  private static final int ALIGN = 64;
  private static final int PREFIX = MAGIC.length + 2 + 2; // magic, version, uint16 length
  private static final int CHUNK = 8192; // doubles per write/read

  private Npy() {}

  /** Writes {@code data} (C order) with the given shape, replacing {@code file} if it exists. */
  public static void writeDoubles(Path file, double[] data, int... shape) throws IOException {
    checkShape(data, shape);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      writeFully(ch, ByteBuffer.wrap(preamble(shape)));
      ByteBuffer buf = ByteBuffer.allocate(CHUNK * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
      for (int off = 0; off < data.length; off += CHUNK) {
        int len = Math.min(CHUNK, data.length - off);
        buf.clear();
        buf.asDoubleBuffer().put(data, off, len);
        buf.limit(len * Double.BYTES);
        writeFully(ch, buf);
      }
    }
  }

  /**
   * Writes {@code data} (C order) with the given shape to {@code out} as one npy file, without
   * closing the stream (for zip entries and HTTP responses).
   */
  public static void writeDoubles(OutputStream out, double[] data, int... shape) throws IOException {
    checkShape(data, shape);
    out.write(preamble(shape));
    ByteBuffer buf = ByteBuffer.allocate(CHUNK * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    for (int off = 0; off < data.length; off += CHUNK) {
      int len = Math.min(CHUNK, data.length - off);
      buf.clear();
      buf.asDoubleBuffer().put(data, off, len);
      out.write(buf.array(), 0, len * Double.BYTES);
    }
  }

  private static void checkShape(double[] data, int[] shape) {
    long count = 1;
    for (int d : shape) {
      if (d < 0) {
        throw new IllegalArgumentException(
            "shape must be non-negative. Provided value: " + Arrays.toString(shape));
      }
      count *= d;
    }
    if (count != data.length) {
      throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " needs " + count
          + " values. Provided value: " + data.length + " values");
    }
  }

  /** The bytes before the data: magic, version, header length and padded header. */
  static byte[] preamble(int[] shape) {
    StringBuilder tuple = new StringBuilder("(");
    for (int i = 0; i < shape.length; i++) {
      tuple.append(i > 0 ? ", " : "").append(shape[i]);
    }
    tuple.append(shape.length == 1 ? ",)" : ")");
    String dict = "{'descr': '<f8', 'fortran_order': False, 'shape': " + tuple + ", }";
    // As numpy.lib.format._wrap_header: pad with 1..64 spaces, then '\n'.
    int pad = ALIGN - (PREFIX + dict.length() + 1) % ALIGN;
    int headerLength = dict.length() + pad + 1;
    if (headerLength > 0xFFFF) {
      throw new IllegalArgumentException("shape too long for npy version 1.0. Provided value: "
          + Arrays.toString(shape));
    }
    ByteBuffer b = ByteBuffer.allocate(PREFIX + headerLength).order(ByteOrder.LITTLE_ENDIAN);
    b.put(MAGIC).put((byte) 1).put((byte) 0).putShort((short) headerLength);
    b.put((dict + " ".repeat(pad) + "\n").getBytes(StandardCharsets.US_ASCII));
    return b.array();
  }

  private static final Pattern DESCR = Pattern.compile("'descr'\\s*:\\s*'([^']*)'");
  private static final Pattern FORTRAN = Pattern.compile("'fortran_order'\\s*:\\s*(True|False)");
  private static final Pattern SHAPE = Pattern.compile("'shape'\\s*:\\s*\\(([^)]*)\\)");

  /**
   * Reads a float64 array ({@code <f8} or {@code >f8}, C order; format versions 1 to 3). If
   * {@code shapeOut} is not null it receives the shape and must have as many elements as the
   * array has dimensions.
   */
  public static double[] readDoubles(Path file, int[] shapeOut) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer pre = readFully(ch, file, 8);
      byte[] magic = new byte[MAGIC.length];
      pre.get(magic);
      if (!Arrays.equals(magic, MAGIC)) {
        throw new IOException(file + ": not an npy file (bad magic)");
      }
      int major = pre.get();
      pre.get();
      long headerLength;
      if (major == 1) {
        headerLength = readFully(ch, file, 2).order(ByteOrder.LITTLE_ENDIAN).getShort() & 0xFFFF;
      } else if (major == 2 || major == 3) {
        headerLength = readFully(ch, file, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xFFFFFFFFL;
      } else {
        throw new IOException(file + ": unsupported npy version " + major);
      }
      if (headerLength > 1 << 20) {
        throw new IOException(file + ": npy header too long: " + headerLength);
      }
      String header = new String(readFully(ch, file, (int) headerLength).array(),
          major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
      String descr = group(DESCR, header, file, "descr");
      if (!descr.equals("<f8") && !descr.equals(">f8")) {
        throw new IOException(file + ": npy dtype " + descr + " is not float64 (<f8)");
      }
      if (group(FORTRAN, header, file, "fortran_order").equals("True")) {
        throw new IOException(file + ": fortran_order arrays are not supported");
      }
      List<Integer> shape = new ArrayList<>();
      long count = 1;
      for (String d : group(SHAPE, header, file, "shape").split(",")) {
        if (!d.isBlank()) {
          try {
            shape.add(Integer.parseInt(d.trim()));
          } catch (NumberFormatException e) {
            throw new IOException(file + ": bad npy shape in header " + header.trim(), e);
          }
          count *= shape.get(shape.size() - 1);
        }
      }
      if (count < 0 || count > Integer.MAX_VALUE - 8) {
        throw new IOException(file + ": npy array too large for one Java array: " + shape);
      }
      if (ch.size() - ch.position() != count * Double.BYTES) {
        throw new IOException(file + ": npy data is " + (ch.size() - ch.position())
            + " bytes, shape " + shape + " needs " + count * Double.BYTES);
      }
      if (shapeOut != null) {
        if (shapeOut.length != shape.size()) {
          throw new IOException(file + ": npy array has shape " + shape + ", expected "
              + shapeOut.length + " dimensions");
        }
        for (int i = 0; i < shapeOut.length; i++) {
          shapeOut[i] = shape.get(i);
        }
      }
      ByteOrder order = descr.startsWith("<") ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
      double[] data = new double[(int) count];
      for (int off = 0; off < data.length; off += CHUNK) {
        int len = Math.min(CHUNK, data.length - off);
        readFully(ch, file, len * Double.BYTES).order(order).asDoubleBuffer().get(data, off, len);
      }
      return data;
    }
  }

  private static String group(Pattern p, String header, Path file, String key) throws IOException {
    Matcher m = p.matcher(header);
    if (!m.find()) {
      throw new IOException(file + ": npy header has no valid '" + key + "': " + header.trim());
    }
    return m.group(1);
  }

  private static ByteBuffer readFully(FileChannel ch, Path file, int n) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(n);
    while (b.hasRemaining()) {
      if (ch.read(b) < 0) {
        throw new EOFException(file + ": truncated npy file");
      }
    }
    return b.flip();
  }

  private static void writeFully(FileChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }
}
