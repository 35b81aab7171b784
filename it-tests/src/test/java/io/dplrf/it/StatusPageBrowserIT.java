package io.dplrf.it;

import static io.dplrf.it.Http.longOf;
import static io.dplrf.it.Http.objectOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.dplrf.it.Stream.Update;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The status page at {@code /} as a person sees it: a real service on the suite's broker, a low-rank
 * stream over two of eight epochs, then Debian's Chromium, headless, renders the page. The DOM after
 * the page's script ran must show the epoch, the privacy parameters, a ticking release age and one bar
 * per released singular value, as many of them "above" as the release's utility report counts; the
 * screenshot (kept as {@code target/screenshots/status-page.png}) must contain the bars' and the noise
 * floor's colours, so the SVG really drew. Skipped without Chromium, except in CI ({@code DPLRF_CI}),
 * whose {@code .ci/run} installs it.
 */
@ExtendWith(KafkaSuite.class)
class StatusPageBrowserIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  /** The page's colours (StatusPage.STYLE): bars above the floor, the floor line. */
  private static final int ACCENT = 0x2b6cb0;
  private static final int WARN = 0xc53030;

  @Test
  void statusPage_rendersEpochPrivacyAgeAndTheSingularValuePlot(KafkaEnvironment kafka) throws Exception {
    Path chromium = chromium();
    final long seed = 7;
    final int m = 200;
    final int n = 150;
    List<Update> updates = TestData.splitIntoUpdates(TestData.lowRank(m, n, 3, 60, seed), seed, 8 * 50);
    List<Update> twoEpochs = new ArrayList<>(updates.subList(0, updates.size() / 4));
    String topic = "it-page-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    Path state = Files.createTempDirectory("dplrf-it-page");
    TestData.writeKey(state.resolve("secret.key"), seed);
    try (RunningService running = RunningService.start(kafka, topic, state, RunningService.settings(
        "rows", "" + m, "cols", "" + n, "rank", "6", "epsilon", "4", "delta", "1e-6",
        "epochs", "8", "epoch-updates", "" + twoEpochs.size() / 2, "clip", "1"))) {
      Stream.sendAll(kafka.bootstrapServers(), topic, Stream.unkeyed(Stream.records(twoEpochs, 50)));
      Map<String, Object> release = Poll.until("release of epoch 2", DEADLINE,
          () -> Http.object(running.api("/v1/release/latest")), r -> longOf(r, "epoch") == 2);
      long reliable = longOf(objectOf(release, "utility"), "reliableRank");
      assertTrue(reliable >= 1 && reliable < 6, "a release with signal and noise bars: " + reliable);

      Path out = Files.createDirectories(Path.of("target", "screenshots")).toAbsolutePath();
      Path png = out.resolve("status-page.png");
      Files.deleteIfExists(png);
      String url = running.api("/");
      // The age ticks once a second: let the page's timers run for 2.5 s of virtual time.
      run(chromium, out, "--virtual-time-budget=2500", "--window-size=1100,1000", "--hide-scrollbars",
          "--screenshot=" + png, url);
      String dom = run(chromium, out, "--virtual-time-budget=2500", "--dump-dom", url);

      assertTrue(dom.contains("2 <small>of 8</small>"), "epoch 2 of 8 in\n" + dom);
      assertTrue(dom.contains("6 epochs left"), "epochs left");
      assertTrue(dom.contains(">Release age<"), "the age card's label");
      assertTrue(dom.contains("ε = 4, δ = 1e-6</span>"), "privacy parameters");
      Matcher age = Pattern.compile("<span id=\"age\" data-age-ms=\"[0-9]+\">([0-9]+) s ago</span>").matcher(dom);
      assertTrue(age.find(), "release age in seconds");
      assertEquals(6, count(dom, "<rect class=\"(above|below)\""), "one bar per singular value");
      assertEquals(reliable, count(dom, "<rect class=\"above\""), "bars above the floor = reliable rank");
      assertTrue(dom.contains("id=\"floor\""), "noise floor line");

      assertTrue(Files.size(png) > 10_000, "screenshot " + png);
      BufferedImage image = ImageIO.read(png.toFile());
      assertEquals(1100, image.getWidth());
      long bars = pixels(image, ACCENT);
      long floor = pixels(image, WARN);
      assertTrue(bars > 2_000, "bar pixels drawn: " + bars);
      assertTrue(floor > 100, "floor line pixels drawn: " + floor);
      System.out.println("status page screenshot: " + png + " (" + bars + " bar pixels, " + floor
          + " floor pixels, reliable rank " + reliable + ")");
    }
  }

  private static Path chromium() {
    String configured = System.getenv("CHROMIUM");
    for (String candidate : new String[] {configured, "/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
      if (candidate != null && Files.isExecutable(Path.of(candidate))) {
        return Path.of(candidate);
      }
    }
    if (System.getenv("DPLRF_CI") != null) {
      fail("Chromium not found (CI installs Debian's chromium package in .ci/run)");
    }
    Assumptions.abort("Chromium not installed (apt-get install chromium); status page browser test skipped");
    return null;
  }

  /** Headless Chromium as the machine allows it: no sandbox (root), no network beyond the page. */
  private static String run(Path chromium, Path work, String... args) throws Exception {
    Path profile = Files.createTempDirectory(work, "chromium-profile");
    List<String> command = new ArrayList<>(List.of(chromium.toString(), "--headless", "--no-sandbox",
        "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile));
    command.addAll(List.of(args));
    Path log = work.resolve("chromium.log");
    Process p = new ProcessBuilder(command).redirectError(log.toFile()).start();
    byte[] stdout = p.getInputStream().readAllBytes();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("chromium did not finish in 60 s: " + Files.readString(log));
    }
    if (p.exitValue() != 0) {
      fail("chromium exited " + p.exitValue() + ": " + Files.readString(log));
    }
    return new String(stdout, StandardCharsets.UTF_8);
  }

  private static int count(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    int c = 0;
    while (m.find()) {
      c++;
    }
    return c;
  }

  /** Pixels within a small distance of {@code rgb} (antialiasing shifts edges, not fills). */
  private static long pixels(BufferedImage image, int rgb) throws IOException {
    int r = rgb >> 16 & 0xff;
    int g = rgb >> 8 & 0xff;
    int b = rgb & 0xff;
    long c = 0;
    for (int y = 0; y < image.getHeight(); y++) {
      for (int x = 0; x < image.getWidth(); x++) {
        int p = image.getRGB(x, y);
        if (Math.abs((p >> 16 & 0xff) - r) + Math.abs((p >> 8 & 0xff) - g) + Math.abs((p & 0xff) - b) < 24) {
          c++;
        }
      }
    }
    return c;
  }
}
