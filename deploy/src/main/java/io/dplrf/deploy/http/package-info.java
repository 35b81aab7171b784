/**
 * The service's HTTP surfaces, on the JDK's {@code com.sun.net.httpserver} (no framework):
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
 * <p>The release being served lives in a {@link io.dplrf.deploy.http.ReleaseCache}: immutable
 * {@link io.dplrf.deploy.http.ServedRelease} snapshots swapped atomically, so a reader sees one whole
 * release or the previous one, never a mixture. Nothing in this package computes a
 * release or reads the sketches; it only serves what it is handed. Errors are JSON
 * {@code {"error": "..."}}; no response ever carries a stack trace.
 */
package io.dplrf.deploy.http;
