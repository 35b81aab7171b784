/**
 * The one-shot mechanisms behind {@code dplrf factorize}, {@code pca} and {@code complete}: each
 * reads a whole input, runs one mechanism of sketch-store and release on it, and writes one
 * release document. Private noise comes from sketch-store, derived from the secret key; a release
 * made with {@code --no-noise} is labelled not private.
 */
package io.dplrf.deploy.oneshot;
