package io.dplrf.deploy.serve.completion;

import io.dplrf.ingest.RatingsStore;
import io.dplrf.release.completion.BiasedAccount;
import io.dplrf.release.completion.BiasedCompletion;
import io.dplrf.release.completion.BiasedModel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A fit of the biased model ({@link BiasedCompletion}, the default {@code completion-model}), as
 * served. Public ({@link #publicJson}): the global offset g, the item biases b_j, the users'
 * shrinkage λ_u, the residual Frank–Wolfe factors when its signal test kept them, the fit's
 * parameters and its account — all of it (ε_run, δ)-DP (docs/privacy/completion.md §7). Per
 * user ({@link #scores}): {@link BiasedModel#completeRow} on the user's own stored ratings, i.e.
 * her own bias c_i = Σ(r − g − b_j)/(n_i + λ_u) and the residual's local component, computed from
 * her ratings and the public part only, clamped to the declared scale. Immutable; thread-safe.
 */
final class ServedBiasedModel implements CompletionRuns.Model {
  private final BiasedModel model;
  private final double itemClip;
  private final String userShrinkageSource;

  /**
   * @param itemClip τ of the fit (public parameter)
   * @param userShrinkageSource how λ_u was set, in words (public)
   */
  ServedBiasedModel(BiasedModel model, double itemClip, String userShrinkageSource) {
    this.model = model;
    this.itemClip = itemClip;
    this.userShrinkageSource = userShrinkageSource;
  }

  BiasedModel model() {
    return model;
  }

  double itemClip() {
    return itemClip;
  }

  String userShrinkageSource() {
    return userShrinkageSource;
  }

  /** Every item's prediction for the user, from her own ratings and the public part only. */
  @Override
  public double[] scores(RatingsStore.UserRatings own) {
    return model.completeRow(own.items(), own.values());
  }

  @Override
  public Map<String, Object> publicJson() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("model", "biased");
    out.put("mechanism", model.isPrivate() ? BiasedCompletion.MECHANISM : "biased-frank-wolfe");
    out.put("privacy", "the biased model (docs/privacy/completion.md section 7): the global"
        + " offset, item biases and lambda_u, and the residual Frank-Wolfe factors when its"
        + " signal test kept them, are (epsilonPerRun, delta)-DP for one user's ratings (see"
        + " /v1/status completion.budget); each user's own bias and predictions are computed"
        + " from her own ratings and this output and served to her only (joint DP)");
    out.put("ratingMin", model.ratingMin());
    out.put("ratingMax", model.ratingMax());
    out.put("maxRatings", model.maxRatingsPerUser());
    out.put("offset", model.offset());
    out.put("itemBiases", model.itemBiases());
    out.put("userShrinkage", model.userShrinkage());
    out.put("userShrinkageEstimated", userShrinkageSource);
    out.put("itemClip", itemClip);
    Map<String, Object> residual = new LinkedHashMap<>();
    residual.put("used", model.residual().isPresent());
    residual.put("status", model.residualStatus());
    model.residual().ifPresent(r -> ServedFrankWolfeModel.frankWolfeJson(r, residual));
    out.put("residual", residual);
    model.account().ifPresent(a -> out.put("account", accountJson(a)));
    return out;
  }

  @Override
  public byte[] encode() {
    return StoredModel.encode(this);
  }

  static Map<String, Object> accountJson(BiasedAccount a) {
    Map<String, Object> acc = new LinkedHashMap<>();
    acc.put("epsilon", a.privacy().epsilon());
    acc.put("delta", a.privacy().delta());
    acc.put("relation", a.relation());
    acc.put("mu", a.mu());
    acc.put("muSpent", a.muSpent());
    List<Map<String, Object>> components = new ArrayList<>();
    for (BiasedAccount.Component c : a.components()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("component", c.name());
      e.put("mu", c.mu());
      List<Map<String, Object>> noise = new ArrayList<>();
      for (BiasedAccount.Part p : c.parts()) {
        Map<String, Object> n = ServedFrankWolfeModel.noiseJson(p.noise());
        n.put("releases", p.releases());
        noise.add(n);
      }
      e.put("noise", noise);
      components.add(e);
    }
    acc.put("components", components);
    return acc;
  }
}
