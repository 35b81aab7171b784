package io.dplrf.client;

import io.dplrf.sketch.randomness.KeyStream;
import io.dplrf.sketch.randomness.RandomBits;
import io.dplrf.sketch.randomness.SecretKey;
import java.util.Objects;

/**
 * The client side of a {@link LocalProtocol}: turns the user's own row into a {@link
 * LocalReport} on the user's machine. Steps, each the protocol's own (derivations in {@link
 * LocalPcaProtocol} and {@link LocalRobustProtocol}): clip a copy of the row to the protocol's
 * bound C (ℓ2 or ℓ1); compute the noiseless query with the protocol's public matrices (for the
 * user's slot, if the protocol has slots); round every part to its noise grid γℤ and add the
 * calibrated noise with the exact sampler of the protocol (discrete Gaussian or Laplace).
 *
 * <p><b>Randomness.</b> The noise is the user's own: {@link #create} draws a fresh 256-bit key
 * from the platform's {@link java.security.SecureRandom} ({@link SecretKey#ephemeral()}), kept in
 * memory only, and reads the AES-256-CTR stream of that key — a CSPRNG. Nothing about it derives
 * from the public seed, and every report consumes fresh bits of the stream, so two reports of the
 * same row carry independent noise. (Sending several reports about one row composes: k reports
 * are together only as private as k runs of the mechanism; a protocol expects one per user.)
 *
 * <p>Thread-safe: {@link #report} is synchronized (the bit stream is sequential). Dependencies:
 * the JDK and dplrf-sketch-store only.
 */
public final class LocalRandomizer {
  private final LocalProtocol protocol;
  private final RandomBits bits;

  private LocalRandomizer(LocalProtocol protocol, RandomBits bits) {
    this.protocol = Objects.requireNonNull(protocol, "protocol");
    this.bits = Objects.requireNonNull(bits, "bits");
  }

  /** A randomizer whose noise comes from a fresh SecureRandom-seeded CSPRNG (class comment). */
  public static LocalRandomizer create(LocalProtocol protocol) {
    return new LocalRandomizer(
        protocol, KeyStream.of(SecretKey.ephemeral(), protocol.noiseLabel()).bits());
  }

  /** Tests only: noise from a given (e.g. test-key) bit source, for reproducible checks. */
  static LocalRandomizer withBits(LocalProtocol protocol, RandomBits bits) {
    return new LocalRandomizer(protocol, bits);
  }

  public LocalProtocol protocol() {
    return protocol;
  }

  /**
   * The user's report under a protocol without slots: clip, sketch, round to the grid, add the
   * calibrated noise.
   *
   * @param row the user's row, d finite values; not modified
   * @throws IllegalArgumentException if the protocol has slots ({@link #report(int, double[])}),
   *     or the row has the wrong length or a non-finite value
   */
  public synchronized LocalReport report(double[] row) {
    if (protocol.hasSlots()) {
      throw new IllegalArgumentException(protocol.mechanism() + " reports carry the user's slot:"
          + " use report(slot, row)");
    }
    return make(LocalProtocol.NO_SLOT, row);
  }

  /**
   * The report of the user in slot {@code slot} under a protocol with slots: clip, sketch with
   * the slot's public columns, round to the grids, add the calibrated noise.
   *
   * @param slot the user's slot i, 0 ≤ i &lt; m (public: which columns she uses)
   * @param row the user's row, d finite values; not modified
   * @throws IllegalArgumentException if the protocol has no slots ({@link #report(double[])}),
   *     for a slot out of range, a row of the wrong length or a non-finite value
   */
  public synchronized LocalReport report(int slot, double[] row) {
    if (!protocol.hasSlots()) {
      throw new IllegalArgumentException(protocol.mechanism() + " reports carry no slot:"
          + " use report(row)");
    }
    return make(slot, row);
  }

  private LocalReport make(int slot, double[] row) {
    double[][] q = protocol.query(slot, protocol.clipped(row));
    protocol.addNoise(q, bits);
    return new LocalReport(protocol, slot, q);
  }
}
