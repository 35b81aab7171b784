/**
 * Mode {@code local} of the service (docs/local-service.md): the server of the local-DP
 * protocols of the client library. {@link io.dplrf.deploy.serve.local.LocalMode} is the mode,
 * {@link io.dplrf.deploy.serve.local.LocalTarget} the exact sums of the reports with their
 * snapshot, the same for every protocol; what differs per protocol (release, published
 * description, snapshot tag) is a {@code ServedProtocol}, one per protocol. No secret key, no
 * server noise, no privacy budget: every report is private by itself.
 */
package io.dplrf.deploy.serve.local;
