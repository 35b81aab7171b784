package io.dplrf.deploy.http;

import io.dplrf.release.UtilityReport;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Optional;

/**
 * The status page at {@code /} of the public listener: a person's view of {@code /v1/status}, in
 * the terms of what the mode serves ({@link Status.Served}). For a release after every epoch: the
 * epoch, the privacy parameters, the release's age, and the released singular values plotted
 * against the noise floor (an inline SVG, log scale). For completion's fits: the fits started of
 * R, the model's age, the privacy parameters and where the model and a user's predictions are
 * served (never a fit's duration or progress: operator only). Server-rendered, no external
 * resources; a few lines of script only tick the age between the page's 15-second refreshes.
 * Everything shown is public: the privacy parameters and what is released.
 */
final class StatusPage {
  static final String MEDIA_TYPE = "text/html";
  static final String CONTENT_TYPE = MEDIA_TYPE + "; charset=utf-8";
  /** No external loads; inline style and the one inline script only. */
  static final String CSP =
      "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; base-uri 'none'; "
          + "form-action 'none'; frame-ancestors 'none'";

  // Plot geometry (SVG user units).
  private static final int WIDTH = 720;
  private static final int HEIGHT = 300;
  private static final int LEFT = 72;
  private static final int RIGHT = 150;
  private static final int TOP = 16;
  private static final int BOTTOM = 40;

  private StatusPage() {}

  /** The page of {@code s}; {@code latest} is the release served (empty for none). */
  static String render(Status s, Optional<ServedRelease> latest, Instant now) {
    StringBuilder h = new StringBuilder(8192);
    if (s.served() instanceof Status.Epochs e) {
      epochs(h, s, e, latest, now);
    } else {
      fits(h, s, (Status.Fits) s.served(), now);
    }
    h.append(SCRIPT).append("</body></html>\n");
    return h.toString();
  }

  private static void epochs(StringBuilder h, Status s, Status.Epochs e,
      Optional<ServedRelease> latest, Instant now) {
    boolean local = e.guarantee() == Status.Guarantee.PER_REPORT;
    head(h, s.exhausted() ? "budget spent" : latest.isPresent() ? "releasing" : "waiting",
        "epoch " + e.epoch() + " of " + e.epochs(), e.released() + ", " + e.rows() + " × "
            + e.cols() + ", rank " + e.rank());
    if (s.exhausted()) {
      h.append("<p class=\"banner\" id=\"exhausted\">").append(esc(s.message().isEmpty()
          ? "The privacy budget is spent: all " + e.epochs() + " epochs are released; no new releases."
          : s.message())).append("</p>\n");
    }

    h.append("<section class=\"cards\">\n");
    int percent = (int) Math.round(100.0 * e.epoch() / e.epochs());
    int left = Math.max(0, e.epochs() - e.epoch());
    card(h, "epoch", "Epoch", e.epoch() + " <small>of " + e.epochs() + "</small>",
        "<div class=\"bar\"><div style=\"width:" + percent + "%\"></div></div>"
            + esc(local ? plural(left, "release") + " left (T bounds the releases; the server"
                + " spends no budget)" : plural(left, "epoch") + " left in the budget"));
    if (latest.isPresent()) {
      ServedRelease r = latest.get();
      card(h, "age", "Release age", age(r.releasedAt(), now),
          "epochs " + r.from() + "–" + r.to() + ", released "
              + esc(r.releasedAt().truncatedTo(ChronoUnit.SECONDS).toString()));
    } else {
      card(h, "age", "Release age", "—", esc(s.message().isEmpty()
          ? "no release yet: the first epoch has not closed" : s.message()));
    }
    card(h, "privacy", "Privacy", "<span class=\"sm\">ε = " + num(s.epsilon()) + ", δ = " + num(s.delta()) + "</span>",
        (local ? "per report (local DP)" : "over all " + e.epochs() + " epochs") + " · "
            + esc(s.mechanism()) + " · unit: " + esc(s.privacyUnit()) + " · clip C = "
            + num(e.clip()));
    latest.filter(r -> !r.utility().floorTerms().isEmpty()).ifPresent(r -> card(h, "rank",
        "Reliable rank", r.utility().reliableRank() + " <small>of " + r.factorization().k()
            + "</small>", "singular values above the noise floor"));
    h.append("</section>\n");

    if (latest.isPresent() && latest.get().utility().floorTerms().isEmpty()) {
      UtilityReport u = latest.get().utility();
      h.append("<section><h2>Released singular values</h2>\n");
      plot(h, u);
      h.append("<p class=\"empty\" id=\"no-floor\">No noise floor is drawn: the release's")
          .append(" utility report gives none (its error estimate: ").append(esc(u.errorFormula()))
          .append(").</p>\n");
    } else {
      h.append("<section><h2>Released singular values and the noise floor</h2>\n");
      if (latest.isPresent()) {
        plot(h, latest.get().utility());
      } else {
        h.append("<p class=\"empty\" id=\"no-release\">No release yet: the plot appears when"
            + " epoch 1 closes.</p>\n");
      }
    }
    h.append("</section>\n");
    relation(h, s);
    h.append("<footer>JSON: <a href=\"/v1/status\">/v1/status</a> · <a href=\"/v1/release/latest\">")
        .append("/v1/release/latest</a> · <a href=\"/v1/release/latest?format=npy\">npy zip</a>. ")
        .append("Everything on this page is public (the privacy parameters and the release); exact ")
        .append("ingest counts are on the operator listener only.</footer>\n</main>\n");
  }

  /**
   * Completion's fits. Public only: fits started, whether one runs, when the served model's fit
   * finished (as {@code /v1/completion} says); never how long a fit took or its iteration.
   */
  private static void fits(StringBuilder h, Status s, Status.Fits f, Instant now) {
    head(h, s.exhausted() ? "budget spent" : f.running() ? "fitting"
            : f.modelRun().isPresent() ? "serving" : "waiting",
        "fit " + f.started() + " of " + f.runs(), f.released() + ", " + f.users() + " users × "
            + f.items() + " items");
    if (s.exhausted()) {
      h.append("<p class=\"banner\" id=\"exhausted\">").append(esc(s.message())).append("</p>\n");
    }
    h.append("<section class=\"cards\">\n");
    int percent = (int) Math.round(100.0 * f.started() / f.runs());
    card(h, "fits", "Fits", f.started() + " <small>of " + f.runs() + "</small>",
        "<div class=\"bar\"><div style=\"width:" + percent + "%\"></div></div>"
            + esc(plural(Math.max(0, f.runs() - f.started()), "fit") + " left in the budget"
                + (f.running() ? "; fit " + f.started() + " is running" : "")));
    if (f.modelRun().isPresent()) {
      card(h, "age", "Model age", age(f.modelFinished(), now), "fit " + f.modelRun().getAsInt()
          + ", finished " + esc(f.modelFinished().truncatedTo(ChronoUnit.SECONDS).toString()));
    } else {
      card(h, "age", "Model age", "—", esc(s.message()));
    }
    card(h, "privacy", "Privacy", "<span class=\"sm\">ε = " + num(s.epsilon()) + ", δ = " + num(s.delta()) + "</span>",
        "over all " + f.runs() + " fits (ε = " + num(f.epsilonPerFit()) + " each) · "
            + esc(s.mechanism()) + " · unit: " + esc(s.privacyUnit()));
    h.append("</section>\n");

    h.append("<section><h2>The model</h2>\n");
    if (f.modelRun().isPresent()) {
      h.append("<p id=\"model\">The public part of fit ").append(f.modelRun().getAsInt())
          .append("'s model is at <a href=\"/v1/completion\">/v1/completion</a>. Each user's")
          .append(" predictions are at <code>/v1/users/{id}/predictions</code>, for that user")
          .append(" only (her token): joint DP.</p>\n");
    } else {
      h.append("<p class=\"empty\" id=\"no-model\">No model yet (").append(esc(s.message()))
          .append("). Once a fit finishes, its public part is at /v1/completion.</p>\n");
    }
    h.append("</section>\n");
    relation(h, s);
    h.append("<footer>JSON: <a href=\"/v1/status\">/v1/status</a> · <a href=\"/v1/completion\">")
        .append("/v1/completion</a>. Everything on this page is public (the privacy parameters, ")
        .append("the fits started and when the model appeared); exact counts and fit timing are ")
        .append("on the operator listener only.</footer>\n</main>\n");
  }

  /** Up to the {@code <main>} element: the title, the state's badge and the subtitle. */
  private static void head(StringBuilder h, String state, String where, String subtitle) {
    h.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .append("<meta http-equiv=\"refresh\" content=\"15\">")
        .append("<title>dplrf · ").append(where)
        .append("</title><style>").append(STYLE).append("</style></head><body>\n");
    h.append("<header><h1>dplrf</h1><span class=\"badge ").append(state.replace(' ', '-')).append("\">")
        .append(state).append("</span><span class=\"sub\">").append(esc(subtitle))
        .append("</span></header>\n<main>\n");
  }

  private static void relation(StringBuilder h, Status s) {
    h.append("<section><h2>Neighbouring relation: <span id=\"relation\">").append(esc(s.relation()))
        .append("</span></h2><p id=\"neighbouring\">").append(esc(s.neighbouring()))
        .append("</p></section>\n");
  }

  /** The age element the page's script ticks. */
  private static String age(Instant at, Instant now) {
    long ageMs = Math.max(0, Duration.between(at, now).toMillis());
    return "<span id=\"age\" data-age-ms=\"" + ageMs + "\">" + age(ageMs) + "</span>";
  }

  /** "1 epoch", "3 epochs". */
  static String plural(int n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  private static void card(StringBuilder h, String id, String title, String value, String detail) {
    h.append("<div class=\"card\" id=\"card-").append(id).append("\"><div class=\"t\">").append(title)
        .append("</div><div class=\"v\">").append(value).append("</div><div class=\"d\">").append(detail)
        .append("</div></div>\n");
  }

  /**
   * Bars of σ₁ ≥ … ≥ σ_k on a log axis, coloured by whether they clear the floor, and the floor as a
   * dashed line. The axis spans both the values and the floor, so a release still under the noise
   * shows as such. A report with no floor terms (local DP: the floor needs the number of reports,
   * which is not released) gets plain bars and no floor line.
   */
  static void plot(StringBuilder h, UtilityReport u) {
    double[] sv = u.singularValues();
    boolean hasFloor = !u.floorTerms().isEmpty();
    double floor = u.noiseFloor();
    boolean[] above = u.aboveFloor();
    double hi = floor;
    double lo = floor > 0 ? floor : Double.POSITIVE_INFINITY; // no noise (non-private): floor 0
    for (double x : sv) {
      hi = Math.max(hi, x);
      if (x > 0) {
        lo = Math.min(lo, x);
      }
    }
    if (lo == Double.POSITIVE_INFINITY) {
      lo = hi > 0 ? hi / 10 : 1;
    }
    double top = Math.pow(10, Math.ceil(Math.log10(hi * 1.05)));
    double bottom = Math.min(top / 10, Math.pow(10, Math.floor(Math.log10(lo / 1.05))));
    double plotH = HEIGHT - TOP - BOTTOM;
    double plotW = WIDTH - LEFT - RIGHT;
    double logTop = Math.log10(top);
    double logSpan = logTop - Math.log10(bottom);
    java.util.function.DoubleUnaryOperator y = v ->
        TOP + plotH * (logTop - Math.log10(Math.max(v, bottom))) / logSpan;

    h.append("<svg id=\"sv-plot\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
        .append("\" role=\"img\" aria-label=\"released singular values against the noise floor\">\n");
    // Horizontal grid and labels at every power of ten.
    for (double t = bottom; t <= top * 1.0001; t *= 10) {
      double ty = y.applyAsDouble(t);
      h.append(String.format(Locale.ROOT, "<line class=\"grid\" x1=\"%d\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
          LEFT, LEFT + plotW, ty, ty));
      h.append(String.format(Locale.ROOT, "<text class=\"tick\" x=\"%d\" y=\"%.1f\">%s</text>%n",
          LEFT - 8, ty + 4, num(t)));
    }
    int k = sv.length;
    double slot = plotW / Math.max(1, k);
    double barW = Math.max(2, Math.min(48, slot * 0.7));
    double base = TOP + plotH;
    for (int i = 0; i < k; i++) {
      double x = LEFT + slot * i + (slot - barW) / 2;
      double by = y.applyAsDouble(sv[i]);
      h.append(String.format(Locale.ROOT,
          "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>σ%d = %s%s</title></rect>",
          !hasFloor ? "plain" : above[i] ? "above" : "below", x, by, barW, Math.max(0, base - by),
          i + 1, num(sv[i]), !hasFloor ? "" : above[i] ? " (above the noise floor)"
              : " (within the noise)"));
      if (k <= 30) {
        h.append(String.format(Locale.ROOT, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">%d</text>",
            x + barW / 2, base + 16, i + 1));
      }
      h.append('\n');
    }
    if (hasFloor) {
      double fy = y.applyAsDouble(floor);
      h.append(String.format(Locale.ROOT,
          "<line id=\"floor\" class=\"floor\" x1=\"%d\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
              + "<text class=\"fl\" x=\"%.1f\" y=\"%.1f\">noise floor %s</text>%n",
          LEFT, LEFT + plotW, fy, fy, LEFT + plotW + 6, fy + 4, num(floor)));
    }
    h.append(String.format(Locale.ROOT,
        "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%.1f\"/>"
            + "<line class=\"axis\" x1=\"%d\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>%n",
        LEFT, LEFT, TOP, base, LEFT, LEFT + plotW, base, base));
    h.append(String.format(Locale.ROOT, "<text class=\"xt\" x=\"%.1f\" y=\"%d\">index i of σᵢ</text>", LEFT + plotW / 2,
        HEIGHT - 4));
    h.append("</svg>\n");
    if (hasFloor) {
      h.append("<p class=\"legend\"><span class=\"sw above\"></span> above the floor: signal ")
          .append("<span class=\"sw below\"></span> within the noise: not to be trusted ")
          .append("<span class=\"sw floorsw\"></span> noise floor (from the public noise scales)</p>\n");
    }
  }

  /** "42 s ago", "3 min ago", "2 h 5 min ago". */
  static String age(long ms) {
    long s = ms / 1000;
    if (s < 60) {
      return s + " s ago";
    }
    if (s < 3600) {
      return (s / 60) + " min ago";
    }
    return (s / 3600) + " h " + (s % 3600) / 60 + " min ago";
  }

  /** Up to 3 significant digits, plain for human-sized magnitudes, scientific otherwise. */
  static String num(double x) {
    if (x == 0) {
      return "0";
    }
    double a = Math.abs(x);
    if (a >= 1e-3 && a < 1e6) {
      java.math.BigDecimal d = new java.math.BigDecimal(x).round(new java.math.MathContext(3));
      return d.stripTrailingZeros().toPlainString();
    }
    String[] parts = String.format(Locale.ROOT, "%.2e", x).split("e");
    String mantissa = parts[0].replaceAll("0+$", "").replaceAll("\\.$", "");
    return mantissa + "e" + Integer.parseInt(parts[1]);
  }

  static String esc(String s) {
    StringBuilder out = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  private static final String STYLE = """
      :root{--fg:#1a202c;--muted:#5a6472;--line:#d9dee5;--accent:#2b6cb0;--dim:#a9b4c2;--warn:#c53030}
      body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:#f6f8fa}
      header{display:flex;align-items:baseline;gap:14px;padding:18px 28px;background:#fff;border-bottom:1px solid var(--line)}
      h1{margin:0;font-size:22px}h2{font-size:16px;margin:0 0 10px}
      .sub{color:var(--muted)}
      .badge{font-size:12px;padding:2px 9px;border-radius:10px;background:#e2e8f0;text-transform:uppercase;letter-spacing:.04em}
      .badge.releasing,.badge.serving{background:#c6f6d5;color:#22543d}.badge.fitting{background:#bee3f8;color:#2a4365}.badge.budget-spent{background:#fed7d7;color:#822727}
      main{max-width:980px;margin:0 auto;padding:20px 28px}
      .banner{background:#fff5f5;border:1px solid #feb2b2;color:#822727;padding:10px 14px;border-radius:6px}
      .cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:14px;margin-bottom:18px}
      .card,section{background:#fff;border:1px solid var(--line);border-radius:8px;padding:14px 16px}
      section{margin-bottom:18px}.cards{background:none;border:0;padding:0}
      .t{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.05em}
      .v{font-size:24px;font-weight:600;margin:2px 0}.v .sm{font-size:19px;white-space:nowrap}.v small{font-size:14px;color:var(--muted);font-weight:400}
      .d{color:var(--muted);font-size:13px}
      .bar{height:6px;background:#edf2f7;border-radius:3px;margin:6px 0}.bar div{height:6px;background:var(--accent);border-radius:3px}
      svg{width:100%;height:auto}
      .grid{stroke:#edf2f7}.axis{stroke:#4a5568}.tick{font-size:11px;fill:var(--muted);text-anchor:end}
      .xl{font-size:11px;fill:var(--muted);text-anchor:middle}.xt{font-size:12px;fill:var(--muted);text-anchor:middle}
      rect.above,rect.plain{fill:var(--accent)}rect.below{fill:var(--dim)}
      .floor{stroke:var(--warn);stroke-width:2;stroke-dasharray:6 4}.fl{font-size:12px;fill:var(--warn)}
      .legend{color:var(--muted);font-size:13px}.sw{display:inline-block;width:12px;height:12px;vertical-align:-1px;margin:0 4px 0 12px}
      .sw.above{background:var(--accent)}.sw.below{background:var(--dim)}.sw.floorsw{border-top:2px dashed var(--warn);height:0;width:18px;vertical-align:3px}
      .empty{color:var(--muted)}footer{color:var(--muted);font-size:13px;margin-top:8px}
      a{color:var(--accent)}
      """;

  /** Ticks the release age from the server's figure (no dependence on the viewer's clock). */
  private static final String SCRIPT = """
      <script>
      (function(){var e=document.getElementById('age');if(!e)return;var a=+e.dataset.ageMs,t0=Date.now();
      function f(ms){var s=Math.floor(ms/1000);if(s<60)return s+' s ago';if(s<3600)return Math.floor(s/60)+' min ago';
      return Math.floor(s/3600)+' h '+Math.floor(s%3600/60)+' min ago';}
      setInterval(function(){e.textContent=f(a+Date.now()-t0);},1000);})();
      </script>
      """;
}
