package io.dplrf.deploy.oneshot;

import io.dplrf.client.LocalAggregate;
import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalProtocol;
import io.dplrf.client.LocalRandomizer;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.release.Pca;
import io.dplrf.release.RobustRelease;
import io.dplrf.sketch.matrix.Dense;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code dplrf pca --mechanism local|local-robust} offline: simulates a local protocol on a file
 * of rows. Every row is one user (with slots, row i is the user of slot i): a fresh {@link
 * LocalRandomizer} (its own SecureRandom-seeded noise, as on a user's device) turns it into a
 * report; the server side only sees the reports, which it sums in a {@link LocalAggregate} and
 * post-processes ({@link #basis}). The rows never reach the aggregate. No secret key is
 * involved: the sketching matrices come from the public seed, the noise from each simulated user.
 */
public final class LocalPcaOneShot {
  private LocalPcaOneShot() {}

  /**
   * The release plus counts for the operator's terminal. {@code aggregate} holds the sums of the
   * reports (private: post-processing of private reports); its number of reports and {@code
   * longRows} (rows above the protocol's norm bound, clipped by their clients) are exact counts,
   * never written to release.json (with slots, m itself is a protocol parameter).
   */
  public record Result(Pca.Subspace subspace, LocalAggregate aggregate, long longRows) {
    public LocalProtocol protocol() {
      return aggregate.protocol();
    }

    public long reports() {
      return aggregate.reports();
    }
  }

  /**
   * Runs the protocol on every row of {@code source}; with slots, on exactly {@code
   * protocol.slots()} rows, row i in slot i.
   *
   * @throws IllegalArgumentException for a rank the protocol's sums cannot give ({@link
   *     #checkRank}), no rows, or with slots another number of rows than slots
   */
  public static Result run(LocalProtocol protocol, int k, PcaOneShot.RowSource source)
      throws Exception {
    checkRank(protocol, k);
    LocalAggregate server = new LocalAggregate(protocol);
    long[] counts = {0, 0}; // rows, long rows
    source.forEach(row -> {
      if (protocol.hasSlots() && counts[0] >= protocol.slots()) {
        throw new IllegalArgumentException("more rows than the protocol's " + protocol.slots()
            + " user slots");
      }
      if (protocol.rowNorm(row) > protocol.clip()) {
        counts[1]++; // the data holder's count only; the client reports nothing about clipping
      }
      LocalRandomizer user = LocalRandomizer.create(protocol);
      server.add(protocol.hasSlots() ? user.report((int) counts[0], row) : user.report(row));
      counts[0]++;
    });
    if (protocol.hasSlots() && counts[0] != protocol.slots()) {
      throw new IllegalArgumentException("the protocol has " + protocol.slots()
          + " user slots but only " + counts[0] + " rows were read");
    }
    if (counts[0] == 0) {
      throw new IllegalArgumentException("no rows: local PCA needs at least one report");
    }
    List<Dense> sums = new ArrayList<>();
    for (int part = 0; part < protocol.parts().size(); part++) {
      sums.add(server.sum(part));
    }
    return new Result(basis(protocol, sums, server.reports(), k), server, counts[1]);
  }

  /**
   * Refuses a rank the protocol cannot release: local-DP PCA's k ≤ t (the sketch width);
   * LOCAL-ROBUST-PCA's k is a protocol parameter (it sizes the sketches).
   */
  static void checkRank(LocalProtocol protocol, int k) {
    if (protocol instanceof LocalRobustProtocol robust) {
      if (k != robust.sizes().k()) {
        throw new IllegalArgumentException("rank (k) must be the protocol's k = "
            + robust.sizes().k() + ". Provided value: " + k);
      }
    } else if (k < 1 || k > ((LocalPcaProtocol) protocol).sketchCols()) {
      throw new IllegalArgumentException("rank (k) must be in 1..t = "
          + ((LocalPcaProtocol) protocol).sketchCols() + " (the sketch width). Provided value: "
          + k);
    }
  }

  /**
   * The rank-k basis from the sums of {@code reports} reports, one {@link Dense} per report part
   * — the one step that differs between the protocols, shared with the service's releases:
   * local-DP PCA, the top-k left singular vectors of Y ({@link Pca#fromRangeSketch}, S estimating
   * the eigenvalues of AᵀA); LOCAL-ROBUST-PCA, ROBUST-PCA's post-processing of (Yr, Z) (paper 001,
   * Algorithm 3 lines 10–14, {@link RobustRelease#basis}, S in sketch units). Post-processing:
   * costs no privacy.
   */
  public static Pca.Subspace basis(LocalProtocol protocol, List<Dense> sums, long reports, int k) {
    if (protocol instanceof LocalRobustProtocol robust) {
      return RobustRelease.basis(robust.sketches(sums.get(0), sums.get(1), reports), k);
    }
    return Pca.fromRangeSketch(sums.get(0), k);
  }
}
