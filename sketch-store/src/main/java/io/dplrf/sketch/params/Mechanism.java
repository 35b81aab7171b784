package io.dplrf.sketch.params;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Every mechanism dplrf runs, one type for every layer: the sketches and the tree, the service's
 * settings, the one-shot commands and the release documents name a mechanism by its {@link
 * #cliName}. Each knows the relation it protects unless a caller narrows or widens it (the tree
 * and {@code factorize --relation}), its paper, and where it can run.
 */
public enum Mechanism {
  /** PRIVATE-OPTIMAL-LRF, paper 002 Algorithm 1, under rank-one neighbours (Priv1). */
  PRIV1(NeighbouringRelation.RANK_ONE, Use.LOW_RANK_STREAM,
      "PRIVATE-OPTIMAL-LRF, Upadhyay 2018 (paper 002) Algorithm 1"),
  /** Paper 002 §3: Y = AΦ + N1, Z = SA + N2 with Gaussian Φ, S. */
  PRIV2(NeighbouringRelation.FROBENIUS, Use.LOW_RANK_STREAM,
      "Priv2 sketches Y = A Phi + N1, Z = S A + N2, Upadhyay 2018 (paper 002) Section 3"),
  /**
   * Priv2 with sparse sign embeddings (4 non-zeros per column): O(1) per update, sensitivity
   * exactly C for every ℓ1-bounded change (docs/privacy/l1-units.md).
   */
  PRIV2_SPARSE(NeighbouringRelation.ENTRYWISE_L1, Use.LOW_RANK_STREAM,
      "Priv2 sketches (paper 002 Section 3) with sparse sign embeddings Phi, S (OSNAP,"
          + " Nelson-Nguyen 2013), 4 non-zeros per column; docs/privacy/l1-units.md"),
  /** Dense input perturbation A + N, then a truncated SVD: the baseline. */
  INPUT_PERTURBATION(NeighbouringRelation.FROBENIUS, Use.LOW_RANK,
      "dense input perturbation A + N then truncated SVD (baseline)"),
  /** Paper 000 Algorithm 1 (ROBUST-LRA) under entrywise-ℓ1 neighbours: p-stable sketches, Laplace. */
  ROBUST_LRA(NeighbouringRelation.ENTRYWISE_L1, Use.LOW_RANK_STREAM,
      "ROBUST-LRA, Arora-Braverman-Upadhyay 2018 (paper 000) Algorithm 1: p-stable sketches"
          + " Yr = Phi A, Yc = A Psi, Z = S A T with Laplace noise; docs/privacy/robust.md"),
  /** Paper 000 Algorithm 2 (ROBUST-PCA): the robust sketches without Yc, a basis released. */
  ROBUST_PCA(NeighbouringRelation.ENTRYWISE_L1, Use.LOW_RANK_STREAM,
      "ROBUST-PCA, Arora-Braverman-Upadhyay 2018 (paper 000) Algorithm 2: p-stable sketches with"
          + " Laplace noise, orthonormal basis released; docs/privacy/robust.md"),
  /** Row-level PCA: Analyze Gauss (Dwork, Talwar, Thakurta, Zhang, STOC 2014, Algorithm 1). */
  ANALYZE_GAUSS(NeighbouringRelation.ONE_ROW, Use.ROW_PCA,
      "Analyze Gauss: top-k eigenvectors of A^T A + E, E symmetric Gaussian (Dwork, Talwar,"
          + " Thakurta, Zhang, STOC 2014, Algorithm 1)"),
  /** Row-level PCA: Priv2 sketches of AᵀA (paper 002, Corollary 1); the rows mode's tree. */
  ATA_SKETCH(NeighbouringRelation.ONE_ROW, Use.ROW_PCA,
      "Priv2 sketches Y = G Phi + N1, Z = S G + N2 of G = A^T A (Upadhyay 2018, paper 002,"
          + " Corollary 1)"),
  /** Row-level PCA by smooth sensitivity, Gaussian noise (paper 003, Algorithm 1, Cor. 12). */
  SMOOTH_SENSITIVITY(NeighbouringRelation.ONE_ROW, Use.ROW_PCA,
      "Smooth-sensitivity output perturbation with Gaussian noise, (epsilon, delta)-DP: V = QR(V_k"
          + " R + E), R a random k x k rotation, E scaled by a beta-smooth bound on the local"
          + " sensitivity (Gonen, Gilad-Bachrach, paper 003, Algorithm 1, Corollary 12; bound and"
          + " constants: docs/privacy/smooth-sensitivity.md)"),
  /** Row-level PCA by smooth sensitivity, discrete Cauchy noise, pure ε (paper 003, Cor. 13). */
  SMOOTH_SENSITIVITY_PURE(NeighbouringRelation.ONE_ROW, Use.ROW_PCA,
      "Smooth-sensitivity output perturbation with discrete Cauchy noise, pure epsilon-DP (Gonen,"
          + " Gilad-Bachrach, paper 003, Algorithm 1, Corollary 13; bound and constants:"
          + " docs/privacy/smooth-sensitivity.md)"),
  /** Local-DP PCA (paper 002, Theorem 5 read with Corollary 1): each report private by itself. */
  LOCAL(NeighbouringRelation.LOCAL, Use.LOCAL_PCA,
      "local-DP PCA: each user reports round(x x^T Phi) + N with a public orthonormal Phi and its"
          + " own noise; the server sums and takes the top-k left singular vectors (Upadhyay"
          + " 2018, paper 002, Theorem 5 read with Corollary 1; io.dplrf.client)"),
  /** LOCAL-ROBUST-PCA (paper 001, Appendix C, Algorithm 3): pure ε-LDP, ℓ1-clipped rows. */
  LOCAL_ROBUST(NeighbouringRelation.LOCAL, Use.LOCAL_PCA,
      "LOCAL-ROBUST-PCA, pure epsilon-LDP: user i sends Yr_i = Phi[:,i] x^T + N1 and Z_i ="
          + " S[:,i] x^T T + N2 with public p-stable Phi, S, T and her own Laplace noise, rows"
          + " clipped to l1 norm C; the server sums and runs ROBUST-PCA's post-processing (paper"
          + " 001 = supplement of paper 000, Appendix C, Algorithm 3, Theorem 24; io.dplrf.client;"
          + " docs/privacy/local-pca.md section 4)"),
  /** Private Frank–Wolfe matrix completion under joint DP (paper 004, Algorithm 1). */
  PRIVATE_FRANK_WOLFE(NeighbouringRelation.ONE_USER, Use.COMPLETION,
      "private Frank-Wolfe under joint DP, Jain, Thakkar, Thakurta 2018 (paper 004) Algorithm 1;"
          + " docs/privacy/completion.md");

  /** Where a mechanism runs. */
  public enum Use {
    /** A low-rank factorization of A, one shot ({@code dplrf factorize}). */
    LOW_RANK,
    /** The same, and a continual-release stream's tree ({@code dplrf serve}). */
    LOW_RANK_STREAM,
    /** Row-level PCA of A's rows ({@code dplrf pca}; ata-sketch also in rows mode). */
    ROW_PCA,
    /** Local-DP PCA ({@code dplrf pca}, {@code dplrf serve --mode local}). */
    LOCAL_PCA,
    /** Private matrix completion ({@code dplrf complete}, {@code dplrf serve --mode completion}). */
    COMPLETION
  }

  /** The non-zeros per column of priv2-sparse's embeddings: 1/√4 = 1/2 is exact in binary. */
  public static final int SPARSITY = 4;

  private final NeighbouringRelation relation;
  private final Use use;
  private final String reference;

  Mechanism(NeighbouringRelation relation, Use use, String reference) {
    this.relation = relation;
    this.use = use;
    this.reference = reference;
  }

  /** The name on the command line, in settings and documents: lower case, '-' for '_'. */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The relation protected unless a caller says otherwise (see the class comment). */
  public NeighbouringRelation relation() {
    return relation;
  }

  /** The paper, algorithm and documentation it implements. */
  public String reference() {
    return reference;
  }

  public Use use() {
    return use;
  }

  /** A low-rank factorization of A (factorize; the streaming ones in the service's tree too). */
  public boolean lowRank() {
    return use == Use.LOW_RANK || use == Use.LOW_RANK_STREAM;
  }

  /** Runs in a continual-release tree. */
  public boolean streams() {
    return use == Use.LOW_RANK_STREAM;
  }

  /** The robust ℓp family (paper 000): entrywise-ℓ1 neighbours, p-stable sketches, Laplace noise. */
  public boolean robust() {
    return this == ROBUST_LRA || this == ROBUST_PCA;
  }

  /** Pure ε-DP: δ is not used. */
  public boolean pure() {
    return robust() || this == SMOOTH_SENSITIVITY_PURE || this == LOCAL_ROBUST;
  }

  /**
   * Whether a one-shot run can be calibrated for {@code r} (docs/privacy/l1-units.md): priv2 and
   * input perturbation for Frobenius or entrywise-ℓ1 neighbours (ℓ1 is contained in Frobenius;
   * priv2 then uses its drawn matrices' exact norms), every other mechanism for its own relation.
   */
  public boolean supports(NeighbouringRelation r) {
    return r == relation || (this == PRIV2 || this == INPUT_PERTURBATION)
        && r == NeighbouringRelation.ENTRYWISE_L1;
  }

  /** The mechanisms of {@code uses}, in declaration order. */
  public static Set<Mechanism> of(Use... uses) {
    Set<Use> wanted = Set.of(uses);
    return Arrays.stream(values()).filter(m -> wanted.contains(m.use))
        .collect(Collectors.toCollection(() -> java.util.EnumSet.noneOf(Mechanism.class)));
  }

  /**
   * The mechanism named {@code name} among {@code allowed}, for the setting or flag {@code what}.
   *
   * @throws IllegalArgumentException naming the allowed ones otherwise
   */
  public static Mechanism parse(String what, String name, Set<Mechanism> allowed) {
    for (Mechanism m : allowed) {
      if (m.cliName().equals(name)) {
        return m;
      }
    }
    throw Preconditions.invalid(what, "one of " + names(allowed), name);
  }

  /** "a, b, c": the names of {@code mechanisms}. */
  public static String names(Set<Mechanism> mechanisms) {
    return mechanisms.stream().map(Mechanism::cliName).collect(Collectors.joining(", "));
  }
}
