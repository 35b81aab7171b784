/**
 * The service's HTTP surfaces. Routing, negotiation and the JSON contract are this package's
 * own ({@link io.dplrf.deploy.http.Router}); the transport under it is Jetty's core server
 * (no servlet), confined to {@code Server}, {@code HeaderDeadline} and {@code JsonErrors}, with the
 * limits of {@code HttpLimits}: slow or hostile clients cost sockets and bytes, never the threads
 * that answer probes and scrapes (docs/operations.md §8).
 *
 * <ul>
 *   <li>{@link io.dplrf.deploy.http.PublicApi} — the released factorization, public by
 *       construction (post-processing of DP sketches): {@code /v1/release/latest},
 *       {@code /v1/release?from=&to=}, {@code /v1/rows/{i}}, {@code /v1/cols/{j}},
 *       {@code /v1/score?i=&j=}, {@code /v1/status}, {@code /health}.
 *   <li>{@link io.dplrf.deploy.http.OperatorApi} — exact, <b>non-private</b> numbers
 *       ({@code /metrics}, {@code /admin/ingest}) on a separate port, behind a bearer token when
 *       one is configured.
 * </ul>
 *
 * <p>{@code /v1/status} and the status page render a {@link io.dplrf.deploy.http.Status}, which
 * the service's mode makes: its guarantee and what it serves, a release after every epoch
 * ({@code Status.Epochs}) or completion's fits ({@code Status.Fits}).
 *
 * <p>The release being served lives in a {@link io.dplrf.deploy.http.ReleaseCache}: immutable
 * {@link io.dplrf.deploy.http.ServedRelease} snapshots swapped atomically, so a reader sees one whole
 * release or the previous one, never a mixture. Nothing in this package computes a
 * release or reads the sketches; it only serves what it is handed. Errors are JSON
 * {@code {"error": "..."}}, those of the transport too (400, 413, 414, 431); no response ever
 * carries a stack trace.
 */
package io.dplrf.deploy.http;
