package io.dplrf.deploy.oneshot;

import io.dplrf.client.LocalPcaAggregate;
import io.dplrf.client.LocalPcaProtocol;
import io.dplrf.client.LocalRandomizer;
import io.dplrf.release.Pca;
import io.dplrf.sketch.pca.RowClipping;

/**
 * {@code dplrf pca --mechanism local} offline: simulates the local-DP protocol on a file of rows.
 * Every row is one user: a fresh {@link LocalRandomizer} (its own SecureRandom-seeded noise, as
 * on a user's device) turns it into a report; the server side only sees the reports, which it
 * sums in a {@link LocalPcaAggregate} and post-processes with {@link Pca#fromRangeSketch}. The
 * rows never reach the aggregate. No secret key is involved: the sketching matrix comes from the
 * public seed, the noise from each simulated user.
 */
public final class LocalPcaOneShot {
  private LocalPcaOneShot() {}

  /**
   * The release plus counts for the operator's terminal. {@code aggregate} is Y, the sum of the
   * reports (private: post-processing of private reports). {@code reports} and {@code longRows}
   * (rows the clients clipped) are exact counts, never written to release.json.
   */
  public record Result(Pca.Subspace subspace, LocalPcaProtocol protocol,
      io.dplrf.sketch.matrix.Dense aggregate, long reports, long longRows) {}

  public static Result run(LocalPcaProtocol protocol, int k, PcaOneShot.RowSource source)
      throws Exception {
    if (k < 1 || k > protocol.sketchCols()) {
      throw new IllegalArgumentException("rank (k) must be in 1..t = " + protocol.sketchCols()
          + " (the sketch width). Provided value: " + k);
    }
    LocalPcaAggregate server = new LocalPcaAggregate(protocol);
    long[] longRows = {0};
    source.forEach(row -> {
      // The data holder's count only; the client itself reports nothing about clipping.
      if (RowClipping.norm(row) > protocol.clip()) {
        longRows[0]++;
      }
      server.add(LocalRandomizer.create(protocol).report(row));
    });
    if (server.reports() == 0) {
      throw new IllegalArgumentException("no rows: local PCA needs at least one report");
    }
    io.dplrf.sketch.matrix.Dense y = server.sum();
    return new Result(Pca.fromRangeSketch(y, k), protocol, y, server.reports(), longRows[0]);
  }
}
