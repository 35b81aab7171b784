package io.dplrf.sketch.matrix;

import java.util.Arrays;

/**
 * A small dense row-major matrix of doubles: the storage of every sketch. Deliberately minimal:
 * the linear algebra of releases lives in the {@code release} module (ojAlgo); this type only
 * holds numbers and supports the additive updates sketches need.
 *
 * <p>Not thread-safe; sketches guard their matrices.
 */
public final class Dense {
  private final int rows;
  private final int cols;
  private final double[] data;

  public Dense(int rows, int cols) {
    this(rows, cols, new double[checkedSize(rows, cols)]);
  }

  /** Wraps {@code data} (row-major, length rows·cols) without copying. */
  public Dense(int rows, int cols, double[] data) {
    if (data.length != checkedSize(rows, cols)) {
      throw new IllegalArgumentException(
          "data length " + data.length + " does not match " + rows + "x" + cols);
    }
    this.rows = rows;
    this.cols = cols;
    this.data = data;
  }

  private static int checkedSize(int rows, int cols) {
    if (rows < 0 || cols < 0) {
      throw new IllegalArgumentException("negative dimension " + rows + "x" + cols);
    }
    long size = (long) rows * cols;
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("matrix too large for one array: " + rows + "x" + cols);
    }
    return (int) size;
  }

  public int rows() {
    return rows;
  }

  public int cols() {
    return cols;
  }

  public double get(int i, int j) {
    return data[i * cols + j];
  }

  public void set(int i, int j, double value) {
    data[i * cols + j] = value;
  }

  public void add(int i, int j, double value) {
    data[i * cols + j] += value;
  }

  /** The backing array, row-major. Callers that mutate it own the consequences. */
  public double[] data() {
    return data;
  }

  public Dense copy() {
    return new Dense(rows, cols, data.clone());
  }

  /** Element-wise {@code this += other}. */
  public void addInPlace(Dense other) {
    if (other.rows != rows || other.cols != cols) {
      throw new IllegalArgumentException(
          "shape mismatch " + rows + "x" + cols + " vs " + other.rows + "x" + other.cols);
    }
    double[] o = other.data;
    for (int x = 0; x < data.length; x++) {
      data[x] += o[x];
    }
  }

  public long sizeInBytes() {
    return 8L * data.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Dense d && d.rows == rows && d.cols == cols && Arrays.equals(d.data, data);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * rows + cols) + Arrays.hashCode(data);
  }

  @Override
  public String toString() {
    return "Dense[" + rows + "x" + cols + "]";
  }
}
