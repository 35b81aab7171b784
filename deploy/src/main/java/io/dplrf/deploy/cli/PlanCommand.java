package io.dplrf.deploy.cli;

import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.deploy.plan.ReleasePlan;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.params.Mechanism;
import io.dplrf.sketch.randomness.SecretKey;
import io.dplrf.sketch.tree.TreeConfig;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code dplrf plan}: before any data, the noise floor of the service's release after epochs
 * 1, 2, 3, 4, 7, 8, …, T, from the settings {@code dplrf serve} would take ({@link ReleasePlan}). With
 * {@code --sigma1 S} (the largest singular value the user expects of the final matrix) it says
 * whether the last release would stand above the floor, and warns on stderr when it would not.
 */
final class PlanCommand {
  static final String USAGE = """
      usage: dplrf plan --rows M --cols N --rank K --epsilon E --delta D --epochs T
                        [--continual tree|factorization] [--sigma1 S] [serve settings]
        Prints, before any data, the noise floor of the release after epochs 1, 2, 3, 4, 7,
        8, ..., T (powers of two and the tree's worst epochs 2^j - 1) and the highest one: a
        released singular value must exceed the floor to be trusted. Takes the settings of
        'dplrf serve' (flags, DPLRF_* environment, --config FILE) and calibrates with the
        service's own code: mode (updates, or rows: values are then eigenvalues of A^T A),
        mechanism (priv2-sparse or priv2), clip, privacy-unit, sketch-cols, sketch-rows, alpha.
        epoch-updates/epoch-seconds do not change the noise and may be left out.
        --continual  as for serve: factorization (the BLT mechanism, the default for
                     priv2-sparse and priv2 in mode updates) or tree (the binary tree)
        --sigma1 S   the largest singular value you expect of the final matrix (e.g. from a
                     public study of similar data): plan says whether it stands above the floor
                     of the last release, and warns when it does not
      Nothing is read but the settings: no data, no key (the plan draws its own matrices).
      """;

  private PlanCommand() {}

  static int run(String[] argv, PrintStream out, PrintStream err) {
    List<String> rest = new ArrayList<>();
    Double sigma1 = null;
    boolean epochsCut = false;
    for (int x = 0; x < argv.length; x++) {
      String a = argv[x];
      if (a.equals("--sigma1") && x + 1 >= argv.length) {
        throw new Args.UsageException("plan: flag --sigma1 needs a value");
      }
      if (a.equals("--sigma1")) {
        sigma1 = sigma1(argv[++x]);
      } else {
        epochsCut |= a.equals("--epoch-updates") || a.equals("--epoch-seconds")
            || a.equals("--config");
        rest.add(a);
      }
    }
    Map<String, String> env = System.getenv();
    if (!epochsCut && !env.containsKey("DPLRF_EPOCH_UPDATES")
        && !env.containsKey("DPLRF_EPOCH_SECONDS")) {
      // How epochs are cut does not change the noise; the configuration needs one of the two.
      rest.add("--epoch-updates");
      rest.add("1");
    }
    ServiceConfig config = ServiceConfig.loadForPlan(rest.toArray(String[]::new), 1, env);
    ReleasePlan plan = ReleasePlan.of(config, SecretKey.ephemeral(), "plan");
    print(plan, config, sigma1, out, err);
    return 0;
  }

  private static double sigma1(String s) {
    double v;
    try {
      v = Double.parseDouble(s);
    } catch (NumberFormatException e) {
      throw new Args.UsageException("plan: --sigma1 must be a number. Provided value: " + s);
    }
    if (!(v > 0) || Double.isInfinite(v)) {
      throw new IllegalArgumentException("sigma1 must be > 0 and finite. Provided value: " + s);
    }
    return v;
  }

  static void print(ReleasePlan plan, ServiceConfig config, Double sigma1, PrintStream out,
      PrintStream err) {
    TreeConfig c = plan.config();
    boolean rows = config.tree().rowRecords();
    out.printf(Locale.ROOT, "dplrf plan: %s, rank %d, %s (%s), (%s, %s)-DP over T = %d epochs,"
        + " clip %s, continual %s%n",
        rows ? "rows of dimension d = " + c.sizes().n() + " (A^T A is " + c.sizes().m() + " x "
            + c.sizes().n() + ")" : "a " + c.sizes().m() + " x " + c.sizes().n() + " matrix",
        c.sizes().k(), c.mechanism().cliName(), c.relation().cliName(), c.privacy().epsilon(),
        c.privacy().delta(), c.epochs(), config.clip(),
        plan.kind() == ReleasePlan.Continual.TREE ? "tree" : "factorization (BLT)");
    out.printf(Locale.ROOT, "  sketch t = %d, v = %d; basis p = min(t, 2k) = %d; sigma_min(SU)"
        + " predicted 1 - sqrt(p/v) = %.4f%n", c.sizes().t(), c.sizes().v(), plan.basisWidth(),
        plan.predictedMinSU());
    out.printf(Locale.ROOT, "%8s %14s %14s %14s  %s%n", "epoch", "sigma_Y", "sigma_Z",
        "noise floor", "(a released " + (rows ? "eigenvalue of A^T A" : "singular value")
            + " must exceed the floor to be trusted)");
    ReleasePlan.Epoch last = null;
    for (int e : ReleasePlan.shownEpochs(c.epochs())) {
      ReleasePlan.Epoch ep = plan.predicted(e);
      out.printf(Locale.ROOT, "%8d %14.5g %14.5g %14.5g%n", e, sigma(ep.noise(), "Y"),
          sigma(ep.noise(), "Z"), ep.floor());
      last = ep;
    }
    ReleasePlan.Epoch worst = plan.worst();
    out.printf(Locale.ROOT, "  highest floor: %.5g, at epoch %d%n", worst.floor(), worst.epoch());
    out.println("  The floor is the spectral norm the noise typically reaches (Gordon's bound,"
        + " as in the release's utility report); pure noise exceeds it by small fluctuations.");
    if (c.mechanism() == Mechanism.PRIV2) {
      out.println("  priv2 draws Gaussian matrices: their norms, and so the noise, vary with the"
          + " service's key by a few percent (priv2-sparse: exactly these figures).");
    }
    if (sigma1 == null) {
      out.println("  Compare the floor with the largest singular value you expect (--sigma1).");
      return;
    }
    if (sigma1 > last.floor()) {
      out.printf(Locale.ROOT, "  sigma1 = %.5g stands above the floor of the last release"
          + " (%.5g): reliable rank >= 1 expected at epoch T = %d.%n", sigma1, last.floor(),
          c.epochs());
    } else {
      err.printf(Locale.ROOT, "dplrf plan: WARNING: reliable rank 0: sigma1 = %.5g is below the"
          + " noise floor %.5g of the last release (epoch %d), so every release will be noise"
          + " alone. A larger epsilon, a smaller clip relative to the data, fewer epochs or a"
          + " smaller matrix lower the floor.%n", sigma1, last.floor(), c.epochs());
    }
  }

  private static double sigma(List<NoiseScale> noise, String sketch) {
    for (NoiseScale ns : noise) {
      if (ns.sketch().equals(sketch)) {
        return ns.sigma();
      }
    }
    return Double.NaN;
  }
}
