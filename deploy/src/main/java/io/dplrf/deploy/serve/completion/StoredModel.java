package io.dplrf.deploy.serve.completion;

import io.dplrf.release.completion.BiasedAccount;
import io.dplrf.release.completion.BiasedModel;
import io.dplrf.release.completion.CompletionAccount;
import io.dplrf.release.completion.CompletionDiagnostics;
import io.dplrf.release.completion.CompletionModel;
import io.dplrf.release.completion.EigenSolver;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.params.PrivacyParams;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The byte layout of the stored completion model (the public part of the latest fit, kept in the
 * ratings database under {@link CompletionRuns#MODEL_META} so that a restart serves it without
 * refitting, which would spend budget). Big-endian ({@link DataOutputStream}); UTF is Java's
 * modified UTF-8 with a 2-byte length; f64 an IEEE double, bit for bit.
 *
 * <pre>
 * version 2 (written)
 *   "DPLRFCM2"        8 bytes ASCII
 *   kind              u8: 'B' the biased model, 'F' Frank–Wolfe alone
 *   kind B            ratingMin f64 | ratingMax f64 | ξ i32 | λ_u f64 | λ_u source UTF |
 *                     τ f64 | g f64 | d i32 | b_1..b_d f64 | residual status UTF |
 *                     has residual u8 | [FW] | has account u8 | [biased account]
 *   kind F            ratingMin f64 | ratingMax f64 | offset f64 | FW
 * version 1 (read only: Frank–Wolfe alone, with no rating scale of its own)
 *   "DPLRFCM1" | offset f64 | FW            served clamped to the configured scale
 *
 * FW                  d i32 | ξ i32 | L f64 | k f64 | T i32 | v̂_1..v̂_T (T×d f64) |
 *                     λ̂′_1..λ̂′_T f64 | mechanism UTF | solver UTF | T i32 | Γ i32 | k f64 |
 *                     count i32 | λ̂_t f64 | has account u8 | [FW account]
 * FW account          ε f64 | δ f64 | relation UTF | calibration UTF | releases i32 | μ f64 |
 *                     μ per release f64 | ρ f64 | ε_zCDP f64 | count i32 | noise scale* |
 *                     paper σ f64
 * biased account      ε f64 | δ f64 | relation UTF | μ f64 | count i32 |
 *                     (name UTF | count i32 | (noise scale | releases i64)*)*
 *                     (its residual account is the FW part's own)
 * noise scale         name UTF | σ f64 | Δ f64 | entries i64
 * </pre>
 *
 * A stored model that does not parse exactly (wrong magic, short, trailing bytes, an impossible
 * length) is refused with an {@link IOException} saying so: the service then does not start,
 * rather than serve a model it cannot vouch for. Golden files of every version are in the
 * tests' resources ({@code golden/completion-model-v*.bin}). Stateless.
 */
final class StoredModel {
  static final byte[] MAGIC_V1 = "DPLRFCM1".getBytes(StandardCharsets.US_ASCII);
  static final byte[] MAGIC_V2 = "DPLRFCM2".getBytes(StandardCharsets.US_ASCII);
  private static final int BIASED = 'B';
  private static final int FRANK_WOLFE = 'F';

  private StoredModel() {}

  static byte[] encode(ServedBiasedModel served) {
    return write(d -> {
      d.write(MAGIC_V2);
      d.writeByte(BIASED);
      BiasedModel m = served.model();
      d.writeDouble(m.ratingMin());
      d.writeDouble(m.ratingMax());
      d.writeInt(m.maxRatingsPerUser());
      d.writeDouble(m.userShrinkage());
      d.writeUTF(served.userShrinkageSource());
      d.writeDouble(served.itemClip());
      d.writeDouble(m.offset());
      double[] b = m.itemBiases();
      d.writeInt(b.length);
      writeDoubles(d, b);
      d.writeUTF(m.residualStatus());
      d.writeBoolean(m.residual().isPresent());
      if (m.residual().isPresent()) {
        writeFrankWolfe(d, m.residual().get());
      }
      d.writeBoolean(m.account().isPresent());
      if (m.account().isPresent()) {
        BiasedAccount a = m.account().get();
        d.writeDouble(a.privacy().epsilon());
        d.writeDouble(a.privacy().delta());
        d.writeUTF(a.relation());
        d.writeDouble(a.mu());
        d.writeInt(a.components().size());
        for (BiasedAccount.Component c : a.components()) {
          d.writeUTF(c.name());
          d.writeInt(c.parts().size());
          for (BiasedAccount.Part p : c.parts()) {
            writeNoise(d, p.noise());
            d.writeLong(p.releases());
          }
        }
      }
    });
  }

  static byte[] encode(ServedFrankWolfeModel served) {
    return write(d -> {
      d.write(MAGIC_V2);
      d.writeByte(FRANK_WOLFE);
      d.writeDouble(served.ratingMin());
      d.writeDouble(served.ratingMax());
      d.writeDouble(served.offset());
      writeFrankWolfe(d, served.model());
    });
  }

  /**
   * A stored model of either version.
   *
   * @param ratingMin the configured scale, for a version-1 model (which has none of its own)
   * @throws IOException if the bytes are not a whole stored model of a known version
   */
  static CompletionRuns.Model decode(byte[] bytes, double ratingMin, double ratingMax)
      throws IOException {
    DataInputStream d = new DataInputStream(new ByteArrayInputStream(bytes));
    try {
      byte[] magic = new byte[MAGIC_V2.length];
      d.readFully(magic);
      CompletionRuns.Model out;
      if (Arrays.equals(magic, MAGIC_V1)) {
        double offset = d.readDouble();
        out = new ServedFrankWolfeModel(readFrankWolfe(d), offset, ratingMin, ratingMax);
      } else if (Arrays.equals(magic, MAGIC_V2)) {
        int kind = d.readUnsignedByte();
        out = switch (kind) {
          case BIASED -> readBiased(d);
          case FRANK_WOLFE -> {
            double lo = d.readDouble();
            double hi = d.readDouble();
            double offset = d.readDouble();
            yield new ServedFrankWolfeModel(readFrankWolfe(d), offset, lo, hi);
          }
          default -> throw new IOException("unknown model kind " + kind);
        };
      } else {
        throw new IOException("unknown format "
            + new String(magic, StandardCharsets.US_ASCII).replaceAll("[^ -~]", "?")
            + " (this version reads DPLRFCM1 and DPLRFCM2)");
      }
      if (d.available() > 0) {
        throw new IOException(d.available() + " trailing bytes");
      }
      return out;
    } catch (IOException | RuntimeException e) {
      // RuntimeException: a length or value the model types refuse (IllegalArgumentException).
      throw new IOException("stored completion model (" + CompletionRuns.MODEL_META + ") cannot"
          + " be read: " + e.getMessage(), e);
    }
  }

  private static ServedBiasedModel readBiased(DataInputStream d) throws IOException {
    double lo = d.readDouble();
    double hi = d.readDouble();
    int xi = d.readInt();
    double lambdaU = d.readDouble();
    String lambdaSource = d.readUTF();
    double itemClip = d.readDouble();
    double offset = d.readDouble();
    double[] bias = readDoubles(d, d.readInt());
    String status = d.readUTF();
    CompletionModel residual = d.readBoolean() ? readFrankWolfe(d) : null;
    Optional<BiasedAccount> account = Optional.empty();
    if (d.readBoolean()) {
      PrivacyParams privacy = new PrivacyParams(d.readDouble(), d.readDouble());
      String relation = d.readUTF();
      double mu = d.readDouble();
      List<BiasedAccount.Component> components = new ArrayList<>();
      for (int c = count(d, 1); c > 0; c--) {
        String name = d.readUTF();
        List<BiasedAccount.Part> parts = new ArrayList<>();
        for (int p = count(d, 1); p > 0; p--) {
          parts.add(new BiasedAccount.Part(readNoise(d), d.readLong()));
        }
        components.add(new BiasedAccount.Component(name, parts));
      }
      account = Optional.of(new BiasedAccount(privacy, relation, mu, components,
          residual == null ? Optional.empty() : residual.diagnostics().account()));
    }
    return new ServedBiasedModel(BiasedModel.of(lo, hi, xi, lambdaU, offset, bias, residual,
        status, account), itemClip, lambdaSource);
  }

  private static void writeFrankWolfe(DataOutputStream d, CompletionModel m) throws IOException {
    d.writeInt(m.items());
    d.writeInt(m.maxRatingsPerUser());
    d.writeDouble(m.clip());
    d.writeDouble(m.nuclearNorm());
    d.writeInt(m.iterations());
    for (int t = 1; t <= m.iterations(); t++) {
      writeDoubles(d, m.factor(t));
    }
    writeDoubles(d, m.lambdaPrime());
    CompletionDiagnostics g = m.diagnostics();
    d.writeUTF(g.mechanism());
    d.writeUTF(g.solver().name());
    d.writeInt(g.iterations());
    d.writeInt(g.ojaSteps());
    d.writeDouble(g.nuclearNorm());
    double[] lh = g.lambdaHat();
    d.writeInt(lh.length);
    writeDoubles(d, lh);
    d.writeBoolean(g.account().isPresent());
    if (g.account().isPresent()) {
      CompletionAccount a = g.account().get();
      d.writeDouble(a.privacy().epsilon());
      d.writeDouble(a.privacy().delta());
      d.writeUTF(a.relation());
      d.writeUTF(a.calibration());
      d.writeInt(a.releases());
      d.writeDouble(a.mu());
      d.writeDouble(a.muPerRelease());
      d.writeDouble(a.rho());
      d.writeDouble(a.epsilonZcdp());
      d.writeInt(a.noise().size());
      for (NoiseScale s : a.noise()) {
        writeNoise(d, s);
      }
      d.writeDouble(a.paperSigma());
    }
  }

  private static CompletionModel readFrankWolfe(DataInputStream d) throws IOException {
    int items = count(d, 8); // every factor holds d doubles
    int xi = d.readInt();
    double clip = d.readDouble();
    double k = d.readDouble();
    int t = count(d, (long) items * 8);
    double[][] factors = new double[t][];
    for (int s = 0; s < t; s++) {
      factors[s] = readDoubles(d, items);
    }
    double[] lambdaPrime = readDoubles(d, t);
    String mechanism = d.readUTF();
    EigenSolver solver = EigenSolver.valueOf(d.readUTF());
    int iterations = d.readInt();
    int oja = d.readInt();
    double nuc = d.readDouble();
    double[] lambdaHat = readDoubles(d, d.readInt());
    Optional<CompletionAccount> account = Optional.empty();
    if (d.readBoolean()) {
      PrivacyParams privacy = new PrivacyParams(d.readDouble(), d.readDouble());
      String relation = d.readUTF();
      String calibration = d.readUTF();
      int releases = d.readInt();
      double mu = d.readDouble();
      double muEach = d.readDouble();
      double rho = d.readDouble();
      double epsZ = d.readDouble();
      List<NoiseScale> noise = new ArrayList<>();
      for (int s = count(d, 1); s > 0; s--) {
        noise.add(readNoise(d));
      }
      account = Optional.of(new CompletionAccount(privacy, relation, calibration, releases, mu,
          muEach, rho, epsZ, noise, d.readDouble()));
    }
    return CompletionModel.of(items, xi, clip, k, factors, lambdaPrime,
        new CompletionDiagnostics(mechanism, solver, iterations, oja, nuc, lambdaHat, account));
  }

  private static void writeNoise(DataOutputStream d, NoiseScale s) throws IOException {
    d.writeUTF(s.sketch());
    d.writeDouble(s.sigma());
    d.writeDouble(s.sensitivity());
    d.writeLong(s.entries());
  }

  private static NoiseScale readNoise(DataInputStream d) throws IOException {
    return new NoiseScale(d.readUTF(), d.readDouble(), d.readDouble(), d.readLong());
  }

  private static void writeDoubles(DataOutputStream d, double[] a) throws IOException {
    for (double x : a) {
      d.writeDouble(x);
    }
  }

  /** n doubles; refused before allocating when fewer bytes than that are left. */
  private static double[] readDoubles(DataInputStream d, int n) throws IOException {
    count(n, 8, d);
    double[] a = new double[n];
    for (int x = 0; x < n; x++) {
      a[x] = d.readDouble();
    }
    return a;
  }

  /** A count read from the stream, each counted element taking at least {@code bytesEach}. */
  private static int count(DataInputStream d, long bytesEach) throws IOException {
    return count(d.readInt(), bytesEach, d);
  }

  private static int count(int n, long bytesEach, DataInputStream d) throws IOException {
    if (n < 0 || Math.multiplyExact(n, Math.max(1, bytesEach)) > d.available()) {
      throw new IOException("a count of " + n + " exceeds the " + d.available()
          + " bytes left");
    }
    return n;
  }

  @FunctionalInterface
  private interface Writer {
    void write(DataOutputStream d) throws IOException;
  }

  private static byte[] write(Writer w) {
    try {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      DataOutputStream d = new DataOutputStream(b);
      w.write(d);
      d.flush();
      return b.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
  }
}
