package io.dplrf.deploy.oneshot;

import io.dplrf.client.LocalRobustAggregate;
import io.dplrf.client.LocalRobustProtocol;
import io.dplrf.client.LocalRobustRandomizer;
import io.dplrf.release.Pca;
import io.dplrf.release.RobustRelease;
import io.dplrf.sketch.lra.RobustSketches;
import io.dplrf.sketch.pca.RowClipping;

/**
 * {@code dplrf pca --mechanism local-robust} offline: simulates LOCAL-ROBUST-PCA (paper 001,
 * Appendix C, Algorithm 3) on a file of rows. Row i is the user of slot i: a fresh
 * {@link LocalRobustRandomizer} (her own SecureRandom-seeded noise) turns it into a report; the
 * server side only sees reports, sums them in a {@link LocalRobustAggregate} and runs ROBUST-PCA's
 * post-processing ({@link RobustRelease#basis}). The rows never reach the aggregate. No secret
 * key: the p-stable matrices come from the public seed.
 */
public final class LocalRobustPcaOneShot {
  private LocalRobustPcaOneShot() {}

  /**
   * The release plus counts for the operator's terminal. {@code reports} and {@code longRows}
   * (rows of ℓ1 norm above C, scaled down by their clients) are exact counts, never written to
   * release.json (m itself is a protocol parameter).
   */
  public record Result(Pca.Subspace subspace, LocalRobustProtocol protocol,
      RobustSketches aggregate, long reports, long longRows) {}

  /**
   * Runs the protocol on exactly {@code protocol.users()} rows, row i in slot i.
   *
   * @throws IllegalArgumentException if the source has another number of rows
   */
  public static Result run(LocalRobustProtocol protocol, PcaOneShot.RowSource source)
      throws Exception {
    LocalRobustAggregate server = new LocalRobustAggregate(protocol);
    long[] counts = {0, 0}; // rows, long rows
    source.forEach(row -> {
      if (counts[0] >= protocol.users()) {
        throw new IllegalArgumentException("more rows than the protocol's " + protocol.users()
            + " user slots");
      }
      if (RowClipping.l1Norm(row) > protocol.clip()) {
        counts[1]++; // the data holder's count only; the client reports nothing about clipping
      }
      server.add(LocalRobustRandomizer.create(protocol).report((int) counts[0]++, row));
    });
    if (counts[0] != protocol.users()) {
      throw new IllegalArgumentException("the protocol has " + protocol.users()
          + " user slots but only " + counts[0] + " rows were read");
    }
    RobustSketches sums = server.sketches();
    Pca.Subspace basis = RobustRelease.basis(sums, protocol.sizes().k());
    return new Result(basis, protocol, sums, server.reports(), counts[1]);
  }
}
