package io.dplrf.ingest;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the golden ingest snapshot of the current format version. Run by hand only when a new
 * version is introduced (old golden files are kept, never rewritten): {@code java -cp ...
 * io.dplrf.ingest.GoldenSnapshot ingest/src/test/resources/golden}.
 */
final class GoldenSnapshot {
  private GoldenSnapshot() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createDirectories(Path.of(args[0]));
    Path tmp = Files.createTempDirectory("golden");
    StateStoreTest.Fixture f = StateStoreTest.fixture();
    new StateStore(tmp).write(f.header, f.bounds, f.target);
    Files.copy(tmp.resolve(StateStore.FILE_NAME),
        dir.resolve("ingest-v" + StateStore.VERSION + ".snapshot"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }
}
