package io.dplrf.deploy.serve.completion;

import io.dplrf.release.completion.BiasedAccount;
import io.dplrf.release.completion.BiasedModel;
import io.dplrf.release.completion.CompletionAccount;
import io.dplrf.release.completion.CompletionDiagnostics;
import io.dplrf.release.completion.CompletionModel;
import io.dplrf.release.completion.EigenSolver;
import io.dplrf.sketch.lra.NoiseScale;
import io.dplrf.sketch.params.PrivacyParams;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The fixed content of the stored-model golden files, and a writer for those of the current
 * version. Run by hand only when a new format version is introduced (old golden files are kept,
 * never rewritten): {@code GoldenModels.main("deploy/src/test/resources/golden")}. The version-1
 * file was written by the version-1 encoder from {@link #frankWolfe} with offset {@link
 * #V1_OFFSET}.
 */
final class GoldenModels {
  static final double V1_OFFSET = 2.75;

  private GoldenModels() {}

  /** A Frank–Wolfe model, d = 4, T = 2, with its account (values chosen, not fitted). */
  static CompletionModel frankWolfe() {
    CompletionAccount acc = new CompletionAccount(new PrivacyParams(0.5, 1e-6),
        CompletionAccount.RELATION, "golden calibration", 2, 0.125, 0.0883883476483184,
        0.0078125, 0.21, List.of(new NoiseScale("W", 12.5, 22.627416997969522, 10)), 99.0);
    CompletionDiagnostics g = new CompletionDiagnostics("private-frank-wolfe", EigenSolver.FULL,
        2, 0, 6.0, new double[] {3.25, 1.5}, Optional.of(acc));
    return CompletionModel.of(4, 3, 2.0, 6.0,
        new double[][] {{0.5, -0.5, 0.5, 0.5}, {0.25, 0.75, -0.5, 0.125}},
        new double[] {4.5, 2.75}, g);
  }

  /**
   * A biased model on [0.5, 5] with the residual {@link #frankWolfe} and an account of two
   * components (values chosen, not fitted); g + b_2 exceeds the scale, so a prediction clamps.
   */
  static ServedBiasedModel biased() {
    CompletionModel residual = frankWolfe();
    BiasedAccount account = new BiasedAccount(new PrivacyParams(0.5, 1e-6),
        CompletionAccount.RELATION, 0.25, List.of(
            new BiasedAccount.Component("global offset", List.of(
                new BiasedAccount.Part(new NoiseScale("global sum", 160.0, 4.5, 1), 1),
                new BiasedAccount.Part(new NoiseScale("active users", 35.5, 1.0, 1), 1))),
            new BiasedAccount.Component("residual Frank-Wolfe (2 iterations)", List.of(
                new BiasedAccount.Part(new NoiseScale("W", 12.5, 22.627416997969522, 10), 2)))),
        residual.diagnostics().account());
    BiasedModel m = BiasedModel.of(0.5, 5, 3, 5.25, 4.125, new double[] {0.25, 1.5, -0.75, 0},
        residual, "used: golden", Optional.of(account));
    return new ServedBiasedModel(m, 1.125, "privately");
  }

  /** Frank–Wolfe alone as version 2 stores it. */
  static ServedFrankWolfeModel frankWolfeServed() {
    return new ServedFrankWolfeModel(frankWolfe(), 2.75, 0.5, 5);
  }

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    Files.createDirectories(dir);
    Files.write(dir.resolve("completion-model-v2-biased.bin"), biased().encode());
    Files.write(dir.resolve("completion-model-v2-fw.bin"), frankWolfeServed().encode());
  }
}
