package io.dplrf.client;

import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.PublicSeed;
import io.dplrf.sketch.randomness.RandomBits;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * A local-DP protocol: the public parameters every client and the server share, from which each
 * derives the same public sketching matrices and the same noise. There are two, and their math
 * differs:
 *
 * <ul>
 *   <li>{@link LocalPcaProtocol} — local-DP PCA (paper 002, Theorem 5 read with Corollary 1): a
 *       report is round(x xᵀΦ) plus discrete Gaussian noise, (ε, δ)-DP; no user slots.
 *   <li>{@link LocalRobustProtocol} — LOCAL-ROBUST-PCA (paper 001, Appendix C, Algorithm 3): a
 *       report is two p-stable sketches of the ℓ1-clipped row plus discrete Laplace noise, pure
 *       ε-DP; the user's slot i (one column of the public Φ and S per user) is part of it.
 * </ul>
 *
 * <p>Everything else is written once against this class: a report ({@link LocalReport}) is the
 * protocol id, the slot when the protocol {@link #hasSlots() has slots}, and its {@link #parts()}
 * — each a rows×cols matrix on its own power-of-two noise grid ({@link ReportPart}); {@link
 * LocalRandomizer} makes reports, {@link LocalReportCodec} encodes them, {@link LocalAggregate}
 * sums them. What differs stays in the subclasses, package-private: how a row is clipped, the
 * noiseless query, and the noise. Sealed: a third protocol needs its own privacy argument and
 * wire format, not a subclass elsewhere.
 *
 * <p>Immutable and thread-safe.
 */
public abstract sealed class LocalProtocol permits LocalPcaProtocol, LocalRobustProtocol {
  /** The slot of a report whose protocol has no slots. */
  static final int NO_SLOT = -1;

  LocalProtocol() {}

  /**
   * 16 hex digits identifying every parameter of the protocol: reports carry it, and an aggregate
   * or decoder refuses reports of another protocol.
   */
  public abstract String id();

  /** Name and version of the protocol (part of the {@link #id()}), e.g. "dplrf-local-pca/1". */
  public abstract String format();

  /** The mechanism's command-line name: {@code local} or {@code local-robust}. */
  public abstract String mechanism();

  /** The public seed of the sketching matrices (never of the noise). */
  public abstract PublicSeed seed();

  /** d, the length of every row (public: the schema). */
  public abstract int dimension();

  /** C, the bound rows are clipped to, in the norm of {@link #rowNorm}. */
  public abstract double clip();

  /** The privacy of each report (δ unused by pure-ε protocols). */
  public abstract PrivacyParams privacy();

  /**
   * m, the number of user slots: a report carries its user's slot i ∈ [0, m), which selects the
   * public columns it is made with, and a server counts one report per slot. 0 if reports carry
   * no slot.
   */
  public abstract int slots();

  /** True if reports carry a user slot ({@link #slots()} &gt; 0). */
  public final boolean hasSlots() {
    return slots() > 0;
  }

  /** The parts of every report, in wire order: the shape and noise grid of each. */
  public abstract List<ReportPart> parts();

  /** The norm rows are clipped in (ℓ2 or ℓ1, as the protocol's sensitivity argument needs). */
  public abstract double rowNorm(double[] row);

  /** The label of the randomizer's noise stream (of an ephemeral key, so any fixed label). */
  abstract String noiseLabel();

  /** Clips {@code x} to {@link #rowNorm} ≤ C in place; rejects non-finite values. */
  abstract void clipInPlace(double[] x);

  /**
   * The noiseless query of the clipped row {@code x} for {@code slot} ({@link #NO_SLOT} without
   * slots): one row-major array per part. Package-private on purpose: it is the unnoised
   * statistic and exists outside {@link LocalRandomizer#report} only for tests.
   *
   * @throws IllegalArgumentException for a slot outside [0, m)
   */
  abstract double[][] query(int slot, double[] x);

  /**
   * Rounds every part of {@code query} to its grid and adds the calibrated noise drawn from
   * {@code bits}, in place.
   */
  abstract void addNoise(double[][] query, RandomBits bits);

  /** The wire format of this protocol's reports ({@link LocalReportCodec}). */
  abstract LocalReportCodec.Format wireFormat();

  /** The first 8 bytes of SHA-256(text) in hex: the protocol ids of this package. */
  static String fingerprint(String text) {
    try {
      byte[] h = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(h, 0, 8);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }

  /** A clipped copy of the row, validated ({@link #clipInPlace}). */
  final double[] clipped(double[] row) {
    Objects.requireNonNull(row, "row");
    if (row.length != dimension()) {
      throw new IllegalArgumentException(
          "row has " + row.length + " values, the protocol's dimension is " + dimension());
    }
    double[] x = row.clone();
    clipInPlace(x);
    return x;
  }
}
