package io.dplrf.deploy.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * "Did you mean" for a misspelled option, setting or command: the known names closest to the
 * word by optimal-string-alignment distance (Levenshtein with adjacent transpositions, so
 * {@code rnak} is one edit from {@code rank}), within at most 1 edit for words of up to 4
 * characters and 2 for longer ones: close enough to be a slip, far enough that short unrelated
 * names ({@code p}, {@code key}) are not offered for everything.
 */
public final class Spelling {
  private Spelling() {}

  /** The candidates at the least distance from {@code word}, within the limit, in their order. */
  public static List<String> closest(String word, Collection<String> candidates) {
    int limit = word.length() <= 4 ? 1 : 2;
    int best = limit + 1;
    List<String> out = new ArrayList<>();
    for (String c : candidates) {
      int d = distance(word, c);
      if (d < best) {
        best = d;
        out.clear();
      }
      if (d == best && d <= limit && !out.contains(c)) {
        out.add(c);
      }
    }
    return out;
  }

  /**
   * {@code " (did you mean --rank?)"} for the closest candidates, each after {@code prefix}; an
   * empty string when none is close.
   */
  public static String didYouMean(String word, Collection<String> candidates, String prefix) {
    List<String> c = closest(word, candidates);
    if (c.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder(" (did you mean ");
    for (int x = 0; x < c.size(); x++) {
      b.append(x == 0 ? "" : x == c.size() - 1 ? " or " : ", ").append(prefix).append(c.get(x));
    }
    return b.append("?)").toString();
  }

  /** Optimal string alignment distance: insertions, deletions, substitutions, transpositions. */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
