/**
 * Mode {@code local}: clients randomize their own rows under a published local-DP protocol
 * (docs/local-service.md) and the server sums their reports exactly, on the noise grid, with no key
 * and no budget. {@link io.dplrf.deploy.serve.local.LocalMode} is the mode; the server adds no
 * noise, so nothing here draws randomness.
 */
package io.dplrf.deploy.serve.local;
