package io.dplrf.deploy.http;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What {@code /v1/status} and the status page report: the privacy guarantee of what the service
 * releases and, in {@link #served}, what its mode serves and how far it is — {@link Epochs} for
 * the modes that release after every epoch (updates, rows, local), {@link Fits} for completion's
 * fits. The mode makes its status ({@code ServiceMode.status()}); this package only renders it,
 * the fields of each kind as docs/user-guide.md, docs/local-service.md and
 * docs/completion-service.md list them. All of it is public (the parameters are part of the
 * guarantee).
 *
 * @param mechanism the mechanism's name, e.g. "priv2-sparse"
 * @param relation the neighbouring relation protected, by its short name: "one-entry",
 *     "entrywise-l1", "frobenius", "rank-one", "local", "one-user"
 * @param neighbouring the neighbouring relation, in words, e.g. "streams differing in one update
 *     of |Δ| ≤ C; matrices differ by ‖A − A'‖_F ≤ C"
 * @param privacyUnit "update", "key", "row", "report" or "user"
 * @param exhausted true once the budget's last release (epoch T, fit R) is made and releasing has
 *     stopped
 * @param message a human sentence about the state (why releasing stopped, ...); may be empty
 * @param served what the mode serves: {@link Epochs} or {@link Fits}
 */
public record Status(double epsilon, double delta, String mechanism, String relation,
    String neighbouring, String privacyUnit, boolean exhausted, String message, Served served) {

  public Status {
    Objects.requireNonNull(mechanism, "mechanism");
    Objects.requireNonNull(relation, "relation");
    Objects.requireNonNull(neighbouring, "neighbouring");
    Objects.requireNonNull(privacyUnit, "privacyUnit");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(served, "served");
  }

  /**
   * The status of a mode releasing a differentially private low-rank factorization after every
   * epoch, (ε, δ) over all T epochs (modes updates and rows).
   */
  public Status(int epoch, int epochs, double epsilon, double delta, String mechanism,
      String relation, String neighbouring, double clip, String privacyUnit, boolean exhausted,
      String message, Instant lastRelease, int rows, int cols, int rank) {
    this(epsilon, delta, mechanism, relation, neighbouring, privacyUnit, exhausted, message,
        new Epochs(epoch, epochs, lastRelease, null, clip, rows, cols, rank,
            Guarantee.OVER_ALL_EPOCHS, "differentially private low-rank factorization"));
  }

  /** What a mode serves: one kind per schedule of releases. */
  public sealed interface Served permits Epochs, Fits {

    /** What stays served while ingest waits, in words ("the release of epoch 3 stays available"). */
    String stillServed();
  }

  /** How (ε, δ) covers the releases after the epochs. */
  public enum Guarantee {
    /** The server's noise: (ε, δ) over all T epochs together; T is a privacy parameter. */
    OVER_ALL_EPOCHS,
    /**
     * Local DP: every report is (ε, δ)-DP by itself, the server spends no budget, and T bounds
     * the number of releases only.
     */
    PER_REPORT
  }

  /**
   * A release after every epoch, of {@code epochs} = T (modes updates, rows and local).
   *
   * @param epoch the latest released epoch, 0..T: 0 before the first release, T once exhausted
   *     (the epoch being ingested is the next one; status follows what is released, never the
   *     epoch counter, which runs ahead while a release is being computed)
   * @param epochs T, the most epochs released
   * @param lastRelease when the latest release was made; null before the first
   * @param nextEpochClose with epochs cut by the clock, when the open epoch closes (public: a
   *     function of the clock and of when the first record was read); null otherwise, and before
   *     the first record
   * @param clip C, the bound of one unit's contribution the neighbouring relation names
   * @param rows m of the released factorization (d for rows and local: U = V is d × k)
   * @param cols n of the released factorization
   * @param rank k
   * @param guarantee how (ε, δ) covers the epochs
   * @param released what each release is, in words, e.g. "differentially private low-rank
   *     factorization" (the status page's subtitle)
   */
  public record Epochs(int epoch, int epochs, Instant lastRelease, Instant nextEpochClose,
      double clip, int rows, int cols, int rank, Guarantee guarantee, String released)
      implements Served {

    public Epochs {
      Objects.requireNonNull(guarantee, "guarantee");
      Objects.requireNonNull(released, "released");
    }

    @Override
    public String stillServed() {
      return epoch == 0 ? "nothing is released yet"
          : "the release of epoch " + epoch + " stays available";
    }

    Epochs withNextEpochClose(Instant at) {
      return new Epochs(epoch, epochs, lastRelease, at, clip, rows, cols, rank, guarantee,
          released);
    }
  }

  /**
   * Mode completion's fits: at most {@code runs} = R, each a model whose public part is served
   * at {@code /v1/completion} (docs/completion-service.md). Never a fit's duration or its
   * iteration progress: a fit's time grows with the stored ratings, which one user changes.
   *
   * @param started fits started so far, 0..R (each has spent its share of the budget)
   * @param runs R
   * @param running whether a fit is under way
   * @param modelRun the fit whose model is served; empty before the first finishes
   * @param modelFinished when that fit finished (its model's time, as /v1/completion's
   *     {@code finished}); null with no model
   * @param epsilonPerFit ε of one fit, at the budget's δ
   * @param users m, user ids are in [0, m)
   * @param items n, item ids are in [0, n)
   * @param released what a fit releases, in words (the status page's subtitle)
   * @param fields {@code /v1/status}'s {@code "completion"} object: budget, schedule, the latest
   *     model (JSON-ready values)
   */
  public record Fits(int started, int runs, boolean running, OptionalInt modelRun,
      Instant modelFinished, double epsilonPerFit, int users, int items, String released,
      Map<String, Object> fields) implements Served {

    public Fits {
      Objects.requireNonNull(modelRun, "modelRun");
      Objects.requireNonNull(released, "released");
      fields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    @Override
    public String stillServed() {
      return modelRun.isEmpty() ? "no model is served yet"
          : "the model of fit " + modelRun.getAsInt() + " stays available";
    }
  }

  /** This status with another message (the service's word on its ingest, e.g. a broker outage). */
  public Status withMessage(String newMessage) {
    return new Status(epsilon, delta, mechanism, relation, neighbouring, privacyUnit, exhausted,
        newMessage, served);
  }

  /**
   * This status with {@link Epochs#nextEpochClose} set.
   *
   * @throws IllegalStateException unless it is the status of a release after every epoch
   */
  public Status withNextEpochClose(Instant at) {
    if (!(served instanceof Epochs e)) {
      throw new IllegalStateException("no release after every epoch: " + served);
    }
    return new Status(epsilon, delta, mechanism, relation, neighbouring, privacyUnit, exhausted,
        message, e.withNextEpochClose(at));
  }

  /** T, when the mode releases after every epoch. */
  OptionalInt epochs() {
    return served instanceof Epochs e ? OptionalInt.of(e.epochs()) : OptionalInt.empty();
  }

  /**
   * {@code /v1/status}'s fields before {@code health}. For {@link Epochs} the contract of
   * docs/user-guide.md (the fields and their order), {@code latestRelease} from the release
   * served; for {@link Fits} no epoch, release, clip or rank (none applies), the dimensions as
   * {@code users} and {@code items}, and the mode's {@code completion} object.
   */
  Map<String, Object> json(Optional<ServedRelease> latest) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (served instanceof Epochs e) {
      out.put("epoch", e.epoch());
      out.put("epochs", e.epochs());
      out.put("latestRelease", latest.map(ServedRelease::epoch).orElse(null));
      out.put("lastReleaseTime", e.lastRelease() == null ? null : e.lastRelease().toString());
      out.put("nextEpochClose", e.nextEpochClose() == null ? null
          : e.nextEpochClose().toString());
      common(out);
      out.put("clip", e.clip());
      out.put("epsilon", epsilon);
      out.put("delta", delta);
      out.put("rows", e.rows());
      out.put("cols", e.cols());
      out.put("rank", e.rank());
    } else {
      Fits f = (Fits) served;
      common(out);
      out.put("epsilon", epsilon);
      out.put("delta", delta);
      out.put("users", f.users());
      out.put("items", f.items());
      out.put("completion", f.fields());
    }
    return out;
  }

  private void common(Map<String, Object> out) {
    out.put("exhausted", exhausted);
    out.put("message", message);
    out.put("mechanism", mechanism);
    out.put("relation", relation);
    out.put("neighbouring", neighbouring);
    out.put("privacyUnit", privacyUnit);
  }
}
