package io.dplrf.deploy.serve.completion;

import io.dplrf.ingest.RatingsStore;
import io.dplrf.release.completion.CompletionAccount;
import io.dplrf.release.completion.CompletionDiagnostics;
import io.dplrf.release.completion.CompletionModel;
import io.dplrf.sketch.lra.NoiseScale;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A fit of paper 004's Algorithm 1 alone ({@code completion-model = fw}), as served: trained on
 * ratings minus the public {@code offset}, its public part (item factors, step scales,
 * diagnostics, account) and the local component, whose scores are shifted back by the offset and
 * clamped to the declared rating scale. Immutable; thread-safe.
 */
final class ServedFrankWolfeModel implements CompletionRuns.Model {
  private final CompletionModel model;
  private final double offset;
  private final double ratingMin;
  private final double ratingMax;

  ServedFrankWolfeModel(CompletionModel model, double offset, double ratingMin,
      double ratingMax) {
    this.model = model;
    this.offset = offset;
    this.ratingMin = ratingMin;
    this.ratingMax = ratingMax;
  }

  CompletionModel model() {
    return model;
  }

  double offset() {
    return offset;
  }

  double ratingMin() {
    return ratingMin;
  }

  double ratingMax() {
    return ratingMax;
  }

  /** A_local on the user's own ratings, centred by the offset, shifted back and clamped. */
  @Override
  public double[] scores(RatingsStore.UserRatings own) {
    double[] centred = own.values().clone();
    for (int k = 0; k < centred.length; k++) {
      centred[k] -= offset;
    }
    double[] row = model.completeRow(own.items(), centred);
    for (int j = 0; j < row.length; j++) {
      row[j] = Math.max(ratingMin, Math.min(ratingMax, row[j] + offset));
    }
    return row;
  }

  @Override
  public Map<String, Object> publicJson() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("model", "fw");
    out.put("mechanism", model.diagnostics().mechanism());
    out.put("privacy", "private Frank-Wolfe (paper 004 Algorithm 1): this output is"
        + " (epsilonPerRun, delta)-DP for one user's ratings (see /v1/status completion.budget);"
        + " predictions are joint-DP and served to their own user only");
    out.put("ratingMin", ratingMin);
    out.put("ratingMax", ratingMax);
    out.put("offset", offset);
    frankWolfeJson(model, out);
    return out;
  }

  @Override
  public byte[] encode() {
    return StoredModel.encode(this);
  }

  /** The public part of a Frank–Wolfe model into {@code out} (also the biased model's residual). */
  static void frankWolfeJson(CompletionModel m, Map<String, Object> out) {
    CompletionDiagnostics g = m.diagnostics();
    out.put("solver", g.solver().name().toLowerCase(Locale.ROOT));
    out.put("iterations", m.iterations());
    out.put("ojaSteps", g.ojaSteps());
    out.put("nuclearNorm", m.nuclearNorm());
    out.put("rowNorm", m.clip());
    out.put("maxRatings", m.maxRatingsPerUser());
    List<double[]> factors = new ArrayList<>();
    for (int t = 1; t <= m.iterations(); t++) {
      factors.add(m.factor(t));
    }
    out.put("itemFactors", factors);
    out.put("stepScales", m.lambdaPrime());
    out.put("lambdaHat", g.lambdaHat());
    g.account().ifPresent(a -> out.put("account", accountJson(a)));
  }

  static Map<String, Object> accountJson(CompletionAccount a) {
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
      noise.add(noiseJson(s));
    }
    acc.put("noise", noise);
    acc.put("paperSigma", a.paperSigma());
    return acc;
  }

  static Map<String, Object> noiseJson(NoiseScale s) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("name", s.sketch());
    e.put("sigma", s.sigma());
    e.put("sensitivity", s.sensitivity());
    e.put("entries", s.entries());
    return e;
  }
}
