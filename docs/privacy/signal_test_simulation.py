"""Pure-noise pass rates of the residual signal test (docs/privacy/completion.md section 7).

The noise of the dense solver's release is symmetric with independent N(0, sigma^2) entries on
and above the diagonal (AnalyzeGauss mirrors the packed upper triangle). With W = 0 the released
matrix is that noise alone; the test passes when its top (largest algebraic) eigenvalue reaches
PrivateFrankWolfe.signalThreshold(sigma, d) = sigma * max((3/sqrt 2) sqrt d,
2 sqrt d + 3.3 d^(-1/6)). sigma = 1 without loss of generality. Fixed seed: reproducible.

    python3 docs/privacy/signal_test_simulation.py
"""
import math
import sys

import numpy as np

SEED = 20261125
DRAWS = {12: 1_000_000, 40: 200_000, 140: 50_000, 400: 5_000}
BATCH = {12: 20_000, 40: 5_000, 140: 500, 400: 50}


def thresholds(d):
    overlap = 3 / math.sqrt(2) * math.sqrt(d)
    edge = 2 * math.sqrt(d) + 3.3 * d ** (-1 / 6)
    return max(overlap, edge), overlap, edge


def main():
    rng = np.random.default_rng(SEED)
    print("d, draws, combined threshold, overlap term, edge term,"
          " passes (combined), passes (overlap term alone), passes (edge term alone)")
    for d, draws in DRAWS.items():
        combined, overlap, edge = thresholds(d)
        passes = [0, 0, 0]
        done = 0
        iu = np.triu_indices(d)
        while done < draws:
            b = min(BATCH[d], draws - done)
            n = np.zeros((b, d, d))
            n[:, iu[0], iu[1]] = rng.standard_normal((b, len(iu[0])))
            n = n + np.triu(n, 1).transpose(0, 2, 1)
            top = np.linalg.eigvalsh(n)[:, -1]
            for k, t in enumerate((combined, overlap, edge)):
                passes[k] += int(np.count_nonzero(top >= t))
            done += b
        print(f"{d}, {draws}, {combined:.4f}, {overlap:.4f}, {edge:.4f}, "
              + ", ".join(f"{p} ({p / draws:.2e})" for p in passes))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
