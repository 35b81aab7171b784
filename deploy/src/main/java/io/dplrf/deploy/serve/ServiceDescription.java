package io.dplrf.deploy.serve;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.ingest.ContributionBounds;
import io.dplrf.ingest.IngestConfig;
import io.dplrf.sketch.params.NeighbouringRelation;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What a running service says about itself, in words: its mode, the mechanism and neighbouring
 * relation as {@code /v1/status} names them, and the startup banner; and the ingest loop's
 * settings derived from the configuration. Pure functions of the configuration (and the bound
 * ports), kept apart from {@link Service}'s lifecycle.
 */
final class ServiceDescription {
  private ServiceDescription() {}

  /** The ingest loop's settings; the epoch length goes through exactly (fractions of a second). */
  static IngestConfig ingestConfig(ServiceConfig config) {
    ContributionBounds.Config bounds = new ContributionBounds.Config(config.rows(), config.cols(),
        config.clip(), ServiceDescription.completionMode(config) ? ContributionBounds.Unit.USER_RATING
            : ServiceDescription.localMode(config) ? ContributionBounds.Unit.LOCAL_REPORT
            : ServiceDescription.rowsMode(config) ? ContributionBounds.Unit.ROW_RECORD
            : ContributionBounds.Unit.valueOf(config.privacyUnit().name()),
        ContributionBounds.BudgetPolicy.valueOf(config.budgetPolicy().name()));
    return (config.epochUpdates().isPresent()
        ? IngestConfig.byUpdates(config.topic(), bounds, config.epochUpdates().getAsLong())
        : IngestConfig.byTime(config.topic(), bounds, config.epochDuration().orElseThrow()))
        .withDeadLetterTopic(config.deadLetterTopic());
  }

  static boolean rowsMode(ServiceConfig config) {
    return config.mode() == ServiceConfig.Mode.ROWS;
  }

  static boolean localMode(ServiceConfig config) {
    return config.mode() == ServiceConfig.Mode.LOCAL;
  }

  static boolean completionMode(ServiceConfig config) {
    return config.mode() == ServiceConfig.Mode.COMPLETION;
  }

  /** The privacy unit as /v1/status names it. */
  static String privacyUnit(ServiceConfig config) {
    return completionMode(config) ? "user" : localMode(config) ? "report" : rowsMode(config) ? "row"
        : config.privacyUnit().name().toLowerCase(Locale.ROOT);
  }

  /**
   * The neighbouring relation the tree of modes updates and rows is calibrated for: rows mode's
   * AᵀA changes by x xᵀ, bounded in Frobenius norm; in mode updates every unit is bounded in ℓ1
   * (docs/privacy/l1-units.md): one update is one entry, a key's or a row's updates spread over
   * entries and epochs; priv1 covers one rank-one update.
   */
  static NeighbouringRelation relation(ServiceConfig config) {
    if (rowsMode(config)) {
      return NeighbouringRelation.FROBENIUS;
    }
    return switch (config.mechanism()) {
      case PRIV1 -> NeighbouringRelation.RANK_ONE;
      case ROBUST_LRA, ROBUST_PCA -> NeighbouringRelation.ENTRYWISE_L1;
      case PRIV2, PRIV2_SPARSE -> config.privacyUnit() == ServiceConfig.PrivacyUnit.UPDATE
          ? NeighbouringRelation.ONE_ENTRY : NeighbouringRelation.ENTRYWISE_L1;
      default -> throw new IllegalStateException(config.mechanism() + " does not stream");
    };
  }

  /**
   * What every release of modes updates and rows says about its guarantee (the "metadata" of the
   * release document): mechanism, relation, unit, budget.
   */
  static Map<String, Object> releaseMetadata(ServiceConfig config) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("mechanism", mechanismName(config));
    m.put("relation", relationName(config));
    m.put("neighbouring", neighbouring(config));
    m.put("privacyUnit", privacyUnit(config));
    m.put("epsilon", config.epsilon());
    m.put("delta", config.delta());
    m.put("clip", config.clip());
    m.put("epochs", config.epochs());
    return m;
  }

  /** The relation's short name in /v1/status and release documents, for every mode. */
  static String relationName(ServiceConfig config) {
    return completionMode(config) ? NeighbouringRelation.ONE_USER.cliName()
        : localMode(config) ? NeighbouringRelation.LOCAL.cliName() : relation(config).cliName();
  }

  /** The mechanism as /v1/status names it: rows mode runs Priv2 on AᵀA, the ata-sketch. */
  static String mechanismName(ServiceConfig config) {
    return completionMode(config) ? "private-frank-wolfe"
        : localMode(config) ? config.localMechanism().cliName()
        : rowsMode(config) ? "ata-sketch" : config.mechanism().cliName();
  }

  /**
   * The neighbouring relation on streams, in words (DESIGN.md privacy model), including what the
   * epoch cut makes public (docs/privacy/continual-release.md §7).
   */
  static String neighbouring(ServiceConfig config) {
    String c = String.valueOf(config.clip());
    if (config.localRobust()) {
      return LocalRobustMode.neighbouring(config.clip());
    }
    if (localMode(config)) {
      return LocalMode.neighbouring(config.clip());
    }
    if (completionMode(config)) {
      return CompletionMode.neighbouring(config);
    }
    if (rowsMode(config)) {
      return "streams differing in one row record x, clipped to ||x||_2 <= " + c + " (one row"
          + " added or removed: AᵀA changes by x xᵀ, ||x xᵀ||_F <= " + config.clip() * config.clip()
          + ")" + (config.epochUpdates().isPresent()
          ? "; with epochs cut by row count the other stream holds an all-zero row in its place"
              + " (which records arrive, their lengths, ids, order and times are public)"
          : "; the other stream lacks it (epochs are cut by the clock: arrival times are public)");
    }
    String unit = switch (config.privacyUnit()) {
      case UPDATE -> "streams differing in one update (i, j, delta) with |delta| <= " + c;
      case KEY -> "streams differing in all updates carrying one record key, sum |delta| <= " + c;
      case ROW -> "streams differing in all updates to one row, sum |delta| <= " + c;
    };
    String relation = config.mechanism().robust()
        ? "entrywise l1 (robust, p = " + config.p() + ", pure epsilon-DP): "
        : relation(config) == NeighbouringRelation.ENTRYWISE_L1
        ? "entrywise l1 (the unit's updates may spread over entries and epochs): " : "";
    return relation + unit + (config.epochUpdates().isPresent()
        ? "; the other stream holds zero updates in their place (epochs are cut by update count:"
            + " which records arrive, their lengths, keys, order and times are public)"
        : "; the other stream lacks them (epochs are cut by the clock: arrival times are public)");
  }

  /** The startup banner: what is served and where to push and pull (ports as bound). */
  static String banner(ServiceConfig config, LocalAggregate local, String bootstrap, int httpPort,
      int operatorPort) {
    if (local != null) {
      return local.banner(config, bootstrap, httpPort, operatorPort);
    }
    if (rowsMode(config)) {
      return String.format(Locale.ROOT, """
          dplrf serving rows of dimension d = %d (ata-sketch: rank-%d factorization of the d x d \
          matrix AᵀA), rows clipped to norm %s, (%s, %s)-DP over T = %d epochs
            push rows:      Kafka %s, topic %s (records: int64 row id, then (int32 j, float64 x) \
          pairs, big-endian)
                            e.g. ./dplrf produce --format rows --input FILE.csv --topic %s \
          --bootstrap-servers %s
            pull releases:  http://%s:%d/v1/release/latest   (status: /v1/status)
            operator:       http://%s:%d/metrics, /admin/ingest%s
            state:          %s""", config.cols(), config.rank(), config.clip(), config.epsilon(),
          config.delta(), config.epochs(), bootstrap, config.topic(), config.topic(), bootstrap,
          config.bind(), httpPort, config.bind(), operatorPort,
          config.adminToken().isPresent() ? " (token required)" : "", config.stateDir());
    }
    return String.format(Locale.ROOT, """
        dplrf serving a %dx%d matrix, rank %d, mechanism %s, %s over T = %d epochs
          push updates:   Kafka %s, topic %s (16-byte big-endian records: int32 i, int32 j, float64 delta)
                          e.g. ./dplrf produce --input FILE --topic %s --bootstrap-servers %s
          pull releases:  http://%s:%d/v1/release/latest   (status: /v1/status)
          operator:       http://%s:%d/metrics, /admin/ingest%s
          state:          %s""",
        config.rows(), config.cols(), config.rank(), config.mechanism().cliName(),
        config.mechanism().robust() // Laplace, docs/privacy/robust.md: delta is not used
            ? "pure " + config.epsilon() + "-DP (entrywise l1 neighbours)"
            : "(" + config.epsilon() + ", " + config.delta() + ")-DP",
        config.epochs(), bootstrap, config.topic(), config.topic(), bootstrap, config.bind(),
        httpPort, config.bind(), operatorPort,
        config.adminToken().isPresent() ? " (token required)" : "", config.stateDir());
  }
}
