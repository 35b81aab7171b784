package io.dplrf.deploy.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Proactive content negotiation on the {@code Accept} header (RFC 9110 §12.5.1): which of the
 * media types a route can produce the client accepts, and which it prefers.
 *
 * <p>Each offered type takes the {@code q} of the most specific range that matches it ({@code
 * type/subtype}, then {@code type/*}, then {@code *}{@code /*}; media type parameters other than
 * {@code q} are ignored); {@code q=0} means "not acceptable". The best type has the highest
 * {@code q}; ties go to the type named by the more specific range, then to the route's order.
 * Ranges that are not {@code type/subtype} are skipped; a lone {@code *} ({@code
 * HttpURLConnection} sends it) reads as {@code *}{@code /*}. A missing or blank header accepts
 * anything.
 */
final class Accept {
  private record Range(String type, String subtype, double q) {
    /** 2 for an exact match, 1 for a subtype wildcard, 0 for the full wildcard; -1 for none. */
    int specificity(String offeredType, String offeredSubtype) {
      if (type.equals("*")) {
        return 0;
      }
      if (!type.equals(offeredType)) {
        return -1;
      }
      return subtype.equals("*") ? 1 : subtype.equals(offeredSubtype) ? 2 : -1;
    }
  }

  private Accept() {}

  /**
   * The best of {@code offered} (lower-case {@code type/subtype}, no parameters) for the header
   * value {@code header} (null or blank: no header), or null if the client accepts none of them.
   */
  static String best(String header, List<String> offered) {
    if (header == null || header.isBlank()) {
      return offered.get(0);
    }
    List<Range> ranges = parse(header);
    String best = null;
    double bestQ = 0;
    int bestSpecificity = -1;
    for (String o : offered) {
      int slash = o.indexOf('/');
      String type = o.substring(0, slash);
      String subtype = o.substring(slash + 1);
      double q = 0;
      int specificity = -1;
      for (Range r : ranges) {
        int s = r.specificity(type, subtype);
        if (s > specificity) {
          specificity = s;
          q = r.q();
        }
      }
      if (specificity >= 0 && q > 0
          && (q > bestQ || (q == bestQ && specificity > bestSpecificity))) {
        best = o;
        bestQ = q;
        bestSpecificity = specificity;
      }
    }
    return best;
  }

  private static List<Range> parse(String header) {
    List<Range> out = new ArrayList<>();
    for (String element : header.split(",")) {
      String[] parts = element.split(";");
      String mediaRange = parts[0].trim().toLowerCase(Locale.ROOT);
      if (mediaRange.equals("*")) {
        mediaRange = "*/*";
      }
      int slash = mediaRange.indexOf('/');
      if (slash <= 0 || slash == mediaRange.length() - 1 || mediaRange.indexOf('/', slash + 1) >= 0) {
        continue;
      }
      String type = mediaRange.substring(0, slash);
      String subtype = mediaRange.substring(slash + 1);
      if (type.equals("*") && !subtype.equals("*")) {
        continue;
      }
      double q = 1;
      for (int p = 1; p < parts.length; p++) {
        String param = parts[p].trim();
        if (param.regionMatches(true, 0, "q=", 0, 2)) {
          q = quality(param.substring(2).trim());
        }
      }
      out.add(new Range(type, subtype, q));
    }
    return out;
  }

  /**
   * An RFC 9110 §12.4.2 qvalue (0 to 1, at most three decimals), read leniently: a leading dot
   * ({@code q=.2}, as {@code HttpURLConnection} sends it) is accepted, values above 1 count as 1,
   * and anything unreadable as 1, so that a sloppy client is not refused.
   */
  private static double quality(String s) {
    if (!s.matches("[0-9]{0,3}(\\.[0-9]*)?") || s.isEmpty() || s.equals(".")) {
      return 1;
    }
    return Math.min(1, Double.parseDouble(s.startsWith(".") ? "0" + s : s));
  }
}
