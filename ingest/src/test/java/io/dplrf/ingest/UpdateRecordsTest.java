package io.dplrf.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UpdateRecordsTest {

  @Test
  void encode_thenForEach_roundTripsEveryUpdateInOrder() throws Exception {
    int[] i = {0, 7, Integer.MAX_VALUE, -1};
    int[] j = {3, 0, 5, Integer.MIN_VALUE};
    double[] d = {1.5, -0.0, Double.MIN_VALUE, Double.NaN};
    byte[] v = UpdateRecords.encode(i, j, d, 1, 4);
    assertEquals(48, v.length);
    List<String> seen = new ArrayList<>();
    UpdateRecords.forEach(v, (a, b, c) -> seen.add(a + "," + b + "," + Double.doubleToRawLongBits(c)));
    assertEquals(List.of("7,0," + Double.doubleToRawLongBits(-0.0),
        Integer.MAX_VALUE + ",5," + Double.doubleToRawLongBits(Double.MIN_VALUE),
        "-1," + Integer.MIN_VALUE + "," + Double.doubleToRawLongBits(Double.NaN)), seen);
  }

  @Test
  void encode_isBigEndianIntIntDouble() {
    byte[] v = UpdateRecords.encode(new int[] {1}, new int[] {2}, new double[] {1.0}, 0, 1);
    assertArrayEquals(new byte[] {0, 0, 0, 1, 0, 0, 0, 2, 0x3f, (byte) 0xf0, 0, 0, 0, 0, 0, 0}, v);
  }

  @Test
  void forEach_byteBuffer_readsBigEndianWhateverTheBufferOrderFromItsPosition() throws Exception {
    byte[] v = UpdateRecords.encode(new int[] {4, 5}, new int[] {6, 7}, new double[] {-2.5, 3}, 0, 2);
    ByteBuffer buf = ByteBuffer.allocate(v.length + 3);
    buf.put(new byte[] {9, 9, 9}).put(v).position(3);
    buf.order(ByteOrder.LITTLE_ENDIAN);
    List<String> seen = new ArrayList<>();
    UpdateRecords.forEach(buf, (a, b, c) -> seen.add(a + "," + b + "," + c));
    assertEquals(List.of("4,6,-2.5", "5,7,3.0"), seen);
    assertEquals(3, buf.position());
  }

  @Test
  void positions_dependOnTheLengthOnly_wellFormedOrNot() {
    assertEquals(0, UpdateRecords.positions(null));
    assertEquals(0, UpdateRecords.positions(new byte[15]));
    assertEquals(1, UpdateRecords.positions(new byte[17]));
    byte[] nan = UpdateRecords.encode(new int[] {1, 2}, new int[] {3, 4},
        new double[] {Double.NaN, 1}, 0, 2);
    assertEquals(2, UpdateRecords.positions(nan));
  }

  @Test
  void forEach_lengthNotAPositiveMultipleOf16_isMalformedWithReason() {
    for (int len : new int[] {0, 1, 15, 17, 31, 33}) {
      MalformedRecordException e = assertThrows(MalformedRecordException.class,
          () -> UpdateRecords.forEach(new byte[len], (a, b, c) -> {}));
      assertEquals(DeadLetterReason.BAD_LENGTH, e.reason());
      assertEquals("length " + len + " is not a positive multiple of 16", e.getMessage());
    }
    MalformedRecordException e = assertThrows(MalformedRecordException.class,
        () -> UpdateRecords.forEach((byte[]) null, (a, b, c) -> {}));
    assertEquals("length 0 is not a positive multiple of 16", e.getMessage());
  }

  @Test
  void encode_emptyRange_isRefused() {
    assertThrows(IndexOutOfBoundsException.class,
        () -> UpdateRecords.encode(new int[1], new int[1], new double[1], 0, 0));
  }

  private long sum;

  @Test
  void forEach_allocatesNothingPerUpdate() throws Exception {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    int n = 100_000;
    int[] i = new int[n];
    int[] j = new int[n];
    double[] d = new double[n];
    for (int k = 0; k < n; k++) {
      i[k] = k;
      j[k] = 2 * k;
      d[k] = k;
    }
    byte[] v = UpdateRecords.encode(i, j, d, 0, n);
    UpdateVisitor visitor = (a, b, c) -> sum += a + b + (long) c;
    UpdateRecords.forEach(v, visitor); // warm up
    long tid = Thread.currentThread().getId();
    long before = mx.getThreadAllocatedBytes(tid);
    UpdateRecords.forEach(v, visitor);
    long allocated = mx.getThreadAllocatedBytes(tid) - before;
    // 100k updates: any per-update allocation would be >= 1.6 MB; allow a few bytes of noise.
    assertTrue(allocated < 4096, "allocated " + allocated + " bytes decoding " + n + " updates");
  }
}
