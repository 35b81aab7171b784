package io.dplrf.deploy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpellingTest {
  @TempDir Path dir;

  @Test
  void distance_countsInsertionsDeletionsSubstitutionsAndTranspositions() {
    assertEquals(0, Spelling.distance("rank", "rank"));
    assertEquals(1, Spelling.distance("rnak", "rank"));
    assertEquals(1, Spelling.distance("epsilom", "epsilon"));
    assertEquals(1, Spelling.distance("epoch-update", "epoch-updates"));
    assertEquals(2, Spelling.distance("http_prot", "http-port"));
    assertEquals(3, Spelling.distance("", "key"));
  }

  @Test
  void closest_offersOnlySlips_allTiesInOrder() {
    List<String> names = ServiceConfig.NAMES;
    assertEquals(List.of("rank"), Spelling.closest("rnak", names));
    assertEquals(List.of("epoch-updates"), Spelling.closest("epoch-update", names));
    assertEquals(List.of("epsilon"), Spelling.closest("epsilom", names));
    // Short words: one edit at most, so "x" is not "p" and "bogus" matches nothing.
    assertEquals(List.of(), Spelling.closest("xy", names));
    assertEquals(List.of(), Spelling.closest("bogus", names));
    assertEquals(List.of("rows", "cols"), Spelling.closest("rols", List.of("rows", "cols")));
    assertEquals(" (did you mean --rows or --cols?)",
        Spelling.didYouMean("rols", List.of("rows", "cols"), "--"));
    assertEquals("", Spelling.didYouMean("bogus", names, "--"));
  }

  @Test
  void serveSettings_misspelledInAFlagOrTheFile_areAnsweredWithTheClosestName() throws IOException {
    Map<String, String> none = Map.of();
    ConfigException flag = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
        () -> ServiceConfig.load(new String[] {"--epsilom", "1"}, 0, none));
    assertTrue(flag.getMessage().startsWith("unknown setting in flag --epsilom (did you mean"
        + " --epsilon?)"), flag.getMessage());
    Path f = Files.writeString(dir.resolve("d.conf"), "rows = 3\nepoch-update = 10\n");
    ConfigException file = org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
        () -> ServiceConfig.load(f, none, none));
    assertTrue(file.getMessage().endsWith("d.conf:2: unknown setting 'epoch-update' (did you mean"
        + " epoch-updates?)"), file.getMessage());
  }
}
