package io.dplrf.deploy.http;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The release being served. The release loop {@link #publish}es each new prefix release; HTTP
 * threads read {@link #latest()}. A {@link ServedRelease} is immutable and the swap is one atomic
 * reference write, so a reader sees a whole release, never a half-updated one.
 * Thread-safe.
 */
public final class ReleaseCache {
  /** The 404 of the release routes before the first epoch's release. */
  static final String NO_RELEASE_YET = "no release yet: the first epoch has not closed";

  private final AtomicReference<ServedRelease> latest = new AtomicReference<>();
  private final RangeReleases ranges;
  /** Why there is no release to serve; null for a cache that takes releases. */
  private final String never;

  /** A cache without range releases: {@code /v1/release?from=&to=} answers only the prefix [1, latest]. */
  public ReleaseCache() {
    this(null);
  }

  /** @param ranges computes range releases on demand; null when the service offers none */
  public ReleaseCache(RangeReleases ranges) {
    this(ranges, null);
  }

  private ReleaseCache(RangeReleases ranges, String never) {
    this.ranges = ranges;
    this.never = never;
  }

  /**
   * The cache of a mode that releases no factorization: it never holds one, and the release
   * routes answer 404 with {@code why} (e.g. where that mode's releases are served).
   */
  public static ReleaseCache none(String why) {
    return new ReleaseCache(null, java.util.Objects.requireNonNull(why, "why"));
  }

  /** The 404 message of the release routes while {@link #latest} is empty. */
  String whyNone() {
    return never != null ? never : NO_RELEASE_YET;
  }

  /**
   * Makes {@code release} the latest. It must be a prefix release ({@code from = 1}) of a later
   * epoch than the current one: a release is never replaced by an older or equal one.
   */
  public void publish(ServedRelease release) {
    if (never != null) {
      throw new IllegalStateException("this service releases no factorization: " + never);
    }
    if (release.from() != 1) {
      throw new IllegalArgumentException("published releases must be prefix releases (from = 1). "
          + "Provided value: from = " + release.from());
    }
    latest.updateAndGet(current -> {
      if (current != null && release.epoch() <= current.epoch()) {
        throw new IllegalArgumentException("epoch must be > the latest released epoch "
            + current.epoch() + ". Provided value: " + release.epoch());
      }
      return release;
    });
  }

  /** The latest release; empty until the first epoch closes. */
  public Optional<ServedRelease> latest() {
    return Optional.ofNullable(latest.get());
  }

  /** The range computation, if the service offers one. */
  public Optional<RangeReleases> ranges() {
    return Optional.ofNullable(ranges);
  }
}
