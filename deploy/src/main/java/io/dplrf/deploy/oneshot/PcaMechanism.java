package io.dplrf.deploy.oneshot;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The row-level PCA mechanisms of issue 6 selectable by {@code dplrf pca --mechanism}. A name
 * marked not implemented would be known, so that it is refused with a clear message instead of
 * being mistaken for a typo — and never silently replaced by another mechanism (today every
 * mechanism of issue 6 is implemented).
 */
public enum PcaMechanism {
  ANALYZE_GAUSS("analyze-gauss", true,
      "Analyze Gauss: top-k eigenvectors of A^T A + E, E symmetric Gaussian (Dwork, Talwar, Thakurta, Zhang, STOC 2014, Algorithm 1)"),
  ATA_SKETCH("ata-sketch", true,
      "Priv2 sketches Y = G Phi + N1, Z = S G + N2 of G = A^T A (Upadhyay 2018, paper 002, Corollary 1)"),
  SMOOTH_SENSITIVITY("smooth-sensitivity", true,
      "Smooth-sensitivity output perturbation with Gaussian noise, (epsilon, delta)-DP: V = QR(V_k R + E), R a random k x k rotation, E scaled by a beta-smooth bound on the local sensitivity (Gonen, Gilad-Bachrach, paper 003, Algorithm 1, Corollary 12; bound and constants: docs/privacy/smooth-sensitivity.md)"),
  SMOOTH_SENSITIVITY_PURE("smooth-sensitivity-pure", true,
      "Smooth-sensitivity output perturbation with discrete Cauchy noise, pure epsilon-DP (Gonen, Gilad-Bachrach, paper 003, Algorithm 1, Corollary 13; bound and constants: docs/privacy/smooth-sensitivity.md)"),
  LOCAL("local", true,
      "local-DP PCA: each user reports round(x x^T Phi) + N with a public orthonormal Phi and its own noise; the server sums and takes the top-k left singular vectors (Upadhyay 2018, paper 002, Theorem 5 read with Corollary 1; io.dplrf.client)"),
  LOCAL_ROBUST("local-robust", true,
      "LOCAL-ROBUST-PCA, pure epsilon-LDP: user i sends Yr_i = Phi[:,i] x^T + N1 and Z_i = S[:,i] x^T T + N2 with public p-stable Phi, S, T and her own Laplace noise, rows clipped to l1 norm C; the server sums and runs ROBUST-PCA's post-processing (paper 001 = supplement of paper 000, Appendix C, Algorithm 3, Theorem 24; io.dplrf.client; docs/privacy/local-pca.md section 4)");

  private final String cliName;
  private final boolean implemented;
  private final String reference;

  PcaMechanism(String cliName, boolean implemented, String reference) {
    this.cliName = cliName;
    this.implemented = implemented;
    this.reference = reference;
  }

  public String cliName() {
    return cliName;
  }

  public String reference() {
    return reference;
  }

  public boolean implemented() {
    return implemented;
  }

  /**
   * The implemented mechanism named {@code s}.
   *
   * @throws IllegalArgumentException for an unknown name, or a known one not implemented yet
   */
  public static PcaMechanism parse(String s) {
    for (PcaMechanism m : values()) {
      if (m.cliName.equals(s)) {
        if (!m.implemented) {
          throw new IllegalArgumentException("mechanism " + s + " is not implemented yet (issue 6; "
              + m.reference + "). Implemented: " + implementedNames());
        }
        return m;
      }
    }
    throw new IllegalArgumentException("mechanism must be one of " + implementedNames()
        + ". Provided value: " + s);
  }

  static String implementedNames() {
    return Arrays.stream(values()).filter(PcaMechanism::implemented).map(PcaMechanism::cliName)
        .collect(Collectors.joining(", "));
  }
}
