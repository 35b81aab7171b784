package io.dplrf.deploy.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutputDirectoryTest {
  @TempDir Path dir;

  private List<String> entries(Path d) throws IOException {
    try (Stream<Path> s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  private static OutputDirectory.Writer files(String... names) {
    return tmp -> {
      for (String n : names) {
        Files.createDirectories(tmp.resolve(n).getParent());
        Files.writeString(tmp.resolve(n), n);
      }
    };
  }

  @Test
  void write_createsTargetWithAllFilesAndNoTemporarySiblings() throws IOException {
    Path out = dir.resolve("runs/out");
    OutputDirectory.write(out, false, files("U.npy", "release.json", "sub/x"));
    assertEquals(List.of("U.npy", "release.json", "sub"), entries(out));
    assertEquals("sub/x", Files.readString(out.resolve("sub/x")));
    assertEquals(List.of("out"), entries(dir.resolve("runs")));
  }

  @Test
  void failingBody_leavesNoDirectoryAndRethrows() throws IOException {
    Path out = dir.resolve("out");
    IOException boom = new IOException("boom");
    IOException e = assertThrows(IOException.class, () -> OutputDirectory.write(out, false, tmp -> {
      files("U.npy").write(tmp);
      throw boom;
    }));
    assertSame(boom, e);
    assertEquals(List.of(), entries(dir));

    UncheckedIOException unchecked = new UncheckedIOException(boom);
    assertSame(unchecked, assertThrows(RuntimeException.class,
        () -> OutputDirectory.write(out, true, tmp -> {
          files("a", "b/c").write(tmp);
          throw unchecked;
        })));
    assertEquals(List.of(), entries(dir));
  }

  @Test
  void nonEmptyTarget_isRefusedWithoutOverwriteBeforeTheBodyRuns() throws IOException {
    Path out = dir.resolve("out");
    OutputDirectory.write(out, false, files("old"));
    boolean[] ran = {false};
    FileAlreadyExistsException e = assertThrows(FileAlreadyExistsException.class,
        () -> OutputDirectory.write(out, false, tmp -> ran[0] = true));
    assertTrue(e.getMessage().contains("out"), e.getMessage());
    assertFalse(ran[0]);
    assertEquals(List.of("old"), entries(out));
    assertEquals(List.of("out"), entries(dir));
  }

  @Test
  void emptyTarget_isReplacedWithoutOverwrite() throws IOException {
    Path out = Files.createDirectory(dir.resolve("out"));
    OutputDirectory.write(out, false, files("new"));
    assertEquals(List.of("new"), entries(out));
  }

  @Test
  void overwrite_replacesOldContentAndLeavesNoSiblings() throws IOException {
    Path out = dir.resolve("out");
    OutputDirectory.write(out, false, files("old", "deep/old"));
    OutputDirectory.write(out, true, files("new"));
    assertEquals(List.of("new"), entries(out));
    assertEquals(List.of("out"), entries(dir));
  }

  @Test
  void overwriteWithFailingBody_keepsOldContent() throws IOException {
    Path out = dir.resolve("out");
    OutputDirectory.write(out, false, files("old"));
    assertThrows(IOException.class, () -> OutputDirectory.write(out, true, tmp -> {
      throw new IOException("boom");
    }));
    assertEquals(List.of("old"), entries(out));
    assertEquals(List.of("out"), entries(dir));
  }

  @Test
  void targetThatIsAFile_isRefusedEvenWithOverwrite() throws IOException {
    Path out = Files.writeString(dir.resolve("out"), "x");
    assertThrows(FileAlreadyExistsException.class,
        () -> OutputDirectory.write(out, true, files("a")));
    assertEquals("x", Files.readString(out));
    assertEquals(List.of("out"), entries(dir));
  }

  @Test
  void targetAppearingWhileBodyRuns_isNotOverwrittenAndNoTemporaryIsLeft() throws IOException {
    Path out = dir.resolve("out");
    assertThrows(FileAlreadyExistsException.class, () -> OutputDirectory.write(out, false, tmp -> {
      files("mine").write(tmp);
      Files.createDirectory(out);
      Files.writeString(out.resolve("theirs"), "x");
    }));
    assertEquals(List.of("theirs"), entries(out));
    assertEquals(List.of("out"), entries(dir));
  }
}
