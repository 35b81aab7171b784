package io.dplrf.ingest;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.TreeMap;

/**
 * A test target: the exact matrix as a sorted map (i, j) → Σ Δ, the per-epoch applied counts,
 * and a bound T on epochs. Its state format is its own (little, deterministic).
 */
class RecordingTarget implements IngestTarget {
  final int epochs;
  final TreeMap<Long, Double> matrix = new TreeMap<>();
  long updatesInEpoch;
  final TreeMap<Integer, Long> updatesPerEpoch = new TreeMap<>();
  int closed;
  /** Updates applied by this object (not restored): what this run applied. */
  long appliedThisRun;

  RecordingTarget(int epochs) {
    this.epochs = epochs;
  }

  /** The sink of the loop's update decoder. */
  public void update(int i, int j, double delta) {
    if (exhausted()) {
      throw new IllegalStateException("update after exhaustion");
    }
    matrix.merge(((long) i << 32) | (j & 0xFFFF_FFFFL), delta, Double::sum);
    updatesInEpoch++;
    appliedThisRun++;
  }

  @Override
  public void closeEpoch() {
    closed++;
    updatesPerEpoch.put(closed, updatesInEpoch);
    updatesInEpoch = 0;
  }

  @Override
  public boolean exhausted() {
    return closed >= epochs;
  }

  @Override
  public int epochsClosed() {
    return closed;
  }

  double get(int i, int j) {
    return matrix.getOrDefault(((long) i << 32) | (j & 0xFFFF_FFFFL), 0.0);
  }

  @Override
  public void writeState(OutputStream out) throws IOException {
    DataOutputStream d = new DataOutputStream(out);
    d.writeInt(closed);
    d.writeLong(updatesInEpoch);
    d.writeInt(updatesPerEpoch.size());
    for (Map.Entry<Integer, Long> e : updatesPerEpoch.entrySet()) {
      d.writeInt(e.getKey());
      d.writeLong(e.getValue());
    }
    d.writeInt(matrix.size());
    for (Map.Entry<Long, Double> e : matrix.entrySet()) {
      d.writeLong(e.getKey());
      d.writeDouble(e.getValue());
    }
    d.flush();
  }

  @Override
  public void readState(InputStream in) throws IOException {
    DataInputStream d = new DataInputStream(in);
    closed = d.readInt();
    updatesInEpoch = d.readLong();
    updatesPerEpoch.clear();
    for (int k = d.readInt(); k > 0; k--) {
      updatesPerEpoch.put(d.readInt(), d.readLong());
    }
    matrix.clear();
    for (int k = d.readInt(); k > 0; k--) {
      matrix.put(d.readLong(), d.readDouble());
    }
  }

  /** Serialized state, for comparing two targets. */
  byte[] stateBytes() throws IOException {
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
    writeState(b);
    return b.toByteArray();
  }
}
