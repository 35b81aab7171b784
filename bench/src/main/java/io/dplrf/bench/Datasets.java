package io.dplrf.bench;

import io.dplrf.deploy.oneshot.CompletionOneShot;
import io.dplrf.sketch.matrix.Dense;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Benchmark inputs read from ../shared/data at run time (never copied into the repository): the
 * MovieLens users × movies ratings matrix and rating triples. The synthetic rank-k matrix is
 * {@link io.dplrf.deploy.io.SyntheticMatrix}.
 */
public final class Datasets {
  private Datasets() {}

  /** MovieLens ratings.csv (userId,movieId,rating,timestamp) as a users × rated-movies matrix. */
  public static Dense movieLens(Path ratingsCsv) throws IOException {
    Map<Integer, Integer> users = new HashMap<>();
    Map<Integer, Integer> movies = new HashMap<>();
    java.util.List<double[]> triples = new java.util.ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(ratingsCsv)) {
      String line = r.readLine(); // header
      if (line == null || !line.startsWith("userId")) {
        throw new IOException(ratingsCsv + ": expected the MovieLens header userId,movieId,...");
      }
      while ((line = r.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        String[] f = line.split(",");
        int u = users.computeIfAbsent(Integer.parseInt(f[0]), x -> users.size());
        int mv = movies.computeIfAbsent(Integer.parseInt(f[1]), x -> movies.size());
        triples.add(new double[] {u, mv, Double.parseDouble(f[2])});
      }
    }
    Dense a = new Dense(users.size(), movies.size());
    for (double[] t : triples) {
      a.add((int) t[0], (int) t[1], t[2]);
    }
    return a;
  }

  /**
   * Ratings triples (user, item, rating) with 0-based ids in order of first appearance, read from
   * a CSV with a header line whose first three columns are user, item, rating (MovieLens
   * ratings.csv, Jester's jester_ratings.csv). With {@code topItems > 0} only the most-rated
   * items are kept (ties broken by first appearance), as in paper 004's "Top 400" sets.
   */
  public static CompletionOneShot.Triples ratingTriples(Path csv, int topItems)
      throws IOException {
    java.util.List<String[]> rows = new java.util.ArrayList<>();
    Map<String, Integer> count = new java.util.LinkedHashMap<>();
    try (BufferedReader r = Files.newBufferedReader(csv)) {
      String line = r.readLine(); // header
      if (line == null || !line.toLowerCase(java.util.Locale.ROOT).startsWith("user")) {
        throw new IOException(csv + ": expected a header line userId,itemId,rating,...");
      }
      while ((line = r.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        String[] f = line.split(",");
        rows.add(f);
        count.merge(f[1], 1, Integer::sum);
      }
    }
    java.util.Set<String> keep = new java.util.HashSet<>(count.keySet());
    if (topItems > 0 && topItems < count.size()) {
      keep.clear();
      count.entrySet().stream()
          .sorted((a, b) -> Integer.compare(b.getValue(), a.getValue()))
          .limit(topItems).forEach(e -> keep.add(e.getKey()));
    }
    Map<String, Integer> users = new HashMap<>();
    Map<String, Integer> items = new HashMap<>();
    CompletionOneShot.TripleBuffer out = new CompletionOneShot.TripleBuffer();
    for (String[] f : rows) {
      if (keep.contains(f[1])) {
        out.add(users.computeIfAbsent(f[0], x -> users.size()),
            items.computeIfAbsent(f[1], x -> items.size()), Double.parseDouble(f[2]));
      }
    }
    return out.toTriples();
  }
}
