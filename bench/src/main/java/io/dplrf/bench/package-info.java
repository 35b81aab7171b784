/**
 * The benchmarks behind {@code ./dplrf bench}: accuracy (synthetic, MovieLens, PCA, robust,
 * completion, paper 002's Figure 1 beside the Hardt–Roth baseline), ingest throughput against a bare Kafka consumer, release latency, per-update cost,
 * noise sampling and range releases. Each prints our figure beside a baseline measured in the same
 * run; docs/benchmarks*.md give today's figures and how to reproduce them.
 *
 * <p>This module ships in its own jar ({@code bench/target/dplrf-bench.jar}), never in the
 * production one. Seeded test keys and {@link java.util.SplittableRandom} for synthetic data are
 * fine here; nothing here is private noise or labelled private.
 */
package io.dplrf.bench;
