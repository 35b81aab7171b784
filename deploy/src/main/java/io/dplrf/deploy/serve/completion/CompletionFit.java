package io.dplrf.deploy.serve.completion;

import io.dplrf.deploy.config.CompletionSettings;
import io.dplrf.deploy.config.ServiceConfig;
import io.dplrf.ingest.RatingsStore;
import io.dplrf.release.completion.CompletionAccount;
import io.dplrf.release.completion.CompletionDiagnostics;
import io.dplrf.release.completion.CompletionModel;
import io.dplrf.release.completion.CompletionParams;
import io.dplrf.release.completion.EigenSolver;
import io.dplrf.release.completion.PrivateFrankWolfe;
import io.dplrf.release.completion.Ratings;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.params.PrivacyParams;
import io.dplrf.sketch.randomness.SecretKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The service's adapter to private Frank–Wolfe (io.dplrf.release.completion, paper 004
 * Algorithm 1): reads the committed ratings, fits with this fit's share of the budget ({@link
 * CompletionBudget}) and noise from its own label of the secret key, and wraps the model for
 * serving and storing. The ratings store already applied ξ and the latest-rating rule; the fit
 * clips rows to ‖P_Ω(Y_i)‖₂ ≤ L ({@link Ratings}).
 */
final class CompletionFit implements CompletionRuns.Fitter {
  private static final byte[] MAGIC = "DPLRFCM1".getBytes(StandardCharsets.US_ASCII);

  private final int users;
  private final int items;
  private final CompletionParams params;
  private final CompletionBudget budget;
  private final SecretKey key;
  private final double offset;

  private CompletionFit(int users, int items, CompletionParams params, CompletionBudget budget,
      SecretKey key, double offset) {
    this.offset = offset;
    this.users = users;
    this.items = items;
    this.params = params;
    this.budget = budget;
    this.key = key;
  }

  /**
   * The fit of {@code config}: ξ = max-ratings, L = completion-row-norm (default |rating bound|·√ξ,
   * the largest norm a stored row can have, so no row is clipped), T and k as set or the
   * algorithm's defaults, the solver as set (OJA with the algorithm's default Γ), (ε_run, δ) from
   * {@link CompletionBudget}.
   */
  static CompletionFit create(ServiceConfig config, SecretKey key) {
    CompletionBudget budget = new CompletionBudget(config.epsilon(), config.delta(),
        config.completion().runs());
    double rowNorm = Double.isNaN(config.completion().rowNorm())
        ? config.clip() * Math.sqrt(config.completion().maxRatings()) : config.completion().rowNorm();
    CompletionParams p = CompletionParams.of(new PrivacyParams(budget.epsilonPerRun(),
        config.delta()), config.completion().maxRatings(), rowNorm);
    if (config.completion().iterations().isPresent()) {
      p = p.withIterations(config.completion().iterations().getAsInt());
    }
    if (!Double.isNaN(config.completion().nuclearNorm())) {
      p = p.withNuclearNorm(config.completion().nuclearNorm());
    }
    if (config.completion().solver() == CompletionSettings.Solver.OJA) {
      p = p.withSolver(EigenSolver.OJA, CompletionParams.DEFAULT_OJA_STEPS);
    }
    return new CompletionFit(config.completion().users(), config.completion().items(), p, budget, key,
        config.completion().offset());
  }

  /** T of every fit (public: from public parameters only). */
  int iterations() {
    return params.iterationsFor(users, items);
  }

  @Override
  public CompletionRuns.Model fit(RatingsStore store, String label, CompletionRuns.Progress progress)
      throws IOException {
    int t = iterations();
    progress.iteration(0, t);
    Triples in = new Triples();
    store.forEachUser(r -> {
      for (int k = 0; k < r.size(); k++) {
        in.add(r.user(), r.items()[k], r.values()[k] - offset); // the public offset: centring
      }
    });
    Ratings ratings = Ratings.of(users, items, params.maxRatingsPerUser(), params.clip(),
        Arrays.copyOf(in.user, in.n), Arrays.copyOf(in.item, in.n),
        Arrays.copyOf(in.value, in.n));
    CompletionModel m = PrivateFrankWolfe.fit(ratings, params, key, label,
        done -> progress.iteration(done, t));
    CompletionAccount account = m.diagnostics().account().orElseThrow(
        () -> new IllegalStateException("the fit reports no privacy account"));
    // The budget's premise: this fit used at most its share mu_total/sqrt(R). Never publish past it.
    if (!(account.mu() <= budget.muPerRun())) {
      throw new IllegalStateException("fit used mu = " + account.mu() + " > its share "
          + budget.muPerRun() + "; not published");
    }
    progress.iteration(t, t);
    return new Model(m, offset);
  }

  @Override
  public CompletionRuns.Model decode(byte[] bytes) throws IOException {
    DataInputStream d = new DataInputStream(new ByteArrayInputStream(bytes));
    byte[] magic = new byte[MAGIC.length];
    d.readFully(magic);
    if (!Arrays.equals(magic, MAGIC)) {
      throw new IOException("stored completion model: bad magic number");
    }
    double storedOffset = d.readDouble();
    int d0 = d.readInt();
    int xi = d.readInt();
    double clip = d.readDouble();
    double k = d.readDouble();
    double[][] factors = new double[d.readInt()][];
    for (int t = 0; t < factors.length; t++) {
      factors[t] = doubles(d, d0);
    }
    double[] lambdaPrime = doubles(d, factors.length);
    String mechanism = d.readUTF();
    EigenSolver solver = EigenSolver.valueOf(d.readUTF());
    int iterations = d.readInt();
    int oja = d.readInt();
    double nuc = d.readDouble();
    double[] lambdaHat = doubles(d, d.readInt());
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
      for (int s = d.readInt(); s > 0; s--) {
        noise.add(new NoiseScale(d.readUTF(), d.readDouble(), d.readDouble(), d.readLong()));
      }
      account = Optional.of(new CompletionAccount(privacy, relation, calibration, releases, mu,
          muEach, rho, epsZ, noise, d.readDouble()));
    }
    return new Model(CompletionModel.of(d0, xi, clip, k, factors, lambdaPrime,
        new CompletionDiagnostics(mechanism, solver, iterations, oja, nuc, lambdaHat, account)),
        storedOffset);
  }

  private static double[] doubles(DataInputStream d, int n) throws IOException {
    double[] a = new double[n];
    for (int x = 0; x < n; x++) {
      a[x] = d.readDouble();
    }
    return a;
  }

  /** Growable (user, item, value) arrays. */
  private static final class Triples {
    int n;
    int[] user = new int[1024];
    int[] item = new int[1024];
    double[] value = new double[1024];

    void add(int u, int j, double v) {
      if (n == user.length) {
        user = Arrays.copyOf(user, 2 * n);
        item = Arrays.copyOf(item, 2 * n);
        value = Arrays.copyOf(value, 2 * n);
      }
      user[n] = u;
      item[n] = j;
      value[n++] = v;
    }
  }

  /**
   * A fitted model: public JSON, the local component, and its storage encoding. The offset it
   * was fitted with travels with it (a restart with another setting still predicts consistently).
   */
  static final class Model implements CompletionRuns.Model {
    private final CompletionModel m;
    private final double offset;

    Model(CompletionModel m, double offset) {
      this.m = m;
      this.offset = offset;
    }

    /** A_local on the user's own ratings, centred by the offset, then shifted back. */
    @Override
    public double[] scores(RatingsStore.UserRatings own) {
      double[] centred = own.values().clone();
      for (int k = 0; k < centred.length; k++) {
        centred[k] -= offset;
      }
      double[] row = m.completeRow(own.items(), centred);
      for (int j = 0; j < row.length; j++) {
        row[j] += offset;
      }
      return row;
    }

    @Override
    public Map<String, Object> publicJson() {
      CompletionDiagnostics g = m.diagnostics();
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("mechanism", g.mechanism());
      out.put("solver", g.solver().name().toLowerCase(java.util.Locale.ROOT));
      out.put("iterations", m.iterations());
      out.put("ojaSteps", g.ojaSteps());
      out.put("nuclearNorm", m.nuclearNorm());
      out.put("rowNorm", m.clip());
      out.put("maxRatings", m.maxRatingsPerUser());
      out.put("offset", offset);
      List<double[]> factors = new ArrayList<>();
      for (int t = 1; t <= m.iterations(); t++) {
        factors.add(m.factor(t));
      }
      out.put("itemFactors", factors);
      out.put("stepScales", m.lambdaPrime());
      out.put("lambdaHat", g.lambdaHat());
      g.account().ifPresent(a -> {
        Map<String, Object> acc = new LinkedHashMap<>();
        acc.put("epsilon", a.privacy().epsilon());
        acc.put("delta", a.privacy().delta());
        acc.put("relation", a.relation());
        acc.put("calibration", a.calibration());
        acc.put("releases", a.releases());
        acc.put("mu", a.mu());
        acc.put("muPerRelease", a.muPerRelease());
        acc.put("rho", a.rho());
        acc.put("epsilonZcdp", a.epsilonZcdp());
        List<Map<String, Object>> noise = new ArrayList<>();
        for (NoiseScale s : a.noise()) {
          Map<String, Object> e = new LinkedHashMap<>();
          e.put("name", s.sketch());
          e.put("sigma", s.sigma());
          e.put("sensitivity", s.sensitivity());
          e.put("entries", s.entries());
          noise.add(e);
        }
        acc.put("noise", noise);
        acc.put("paperSigma", a.paperSigma());
        out.put("account", acc);
      });
      return out;
    }

    @Override
    public byte[] encode() {
      try {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        d.write(MAGIC);
        d.writeDouble(offset);
        d.writeInt(m.items());
        d.writeInt(m.maxRatingsPerUser());
        d.writeDouble(m.clip());
        d.writeDouble(m.nuclearNorm());
        d.writeInt(m.iterations());
        for (int t = 1; t <= m.iterations(); t++) {
          for (double x : m.factor(t)) {
            d.writeDouble(x);
          }
        }
        for (double x : m.lambdaPrime()) {
          d.writeDouble(x);
        }
        CompletionDiagnostics g = m.diagnostics();
        d.writeUTF(g.mechanism());
        d.writeUTF(g.solver().name());
        d.writeInt(g.iterations());
        d.writeInt(g.ojaSteps());
        d.writeDouble(g.nuclearNorm());
        double[] lh = g.lambdaHat();
        d.writeInt(lh.length);
        for (double x : lh) {
          d.writeDouble(x);
        }
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
            d.writeUTF(s.sketch());
            d.writeDouble(s.sigma());
            d.writeDouble(s.sensitivity());
            d.writeLong(s.entries());
          }
          d.writeDouble(a.paperSigma());
        }
        d.flush();
        return b.toByteArray();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e); // a byte array does not fail
      }
    }
  }
}
