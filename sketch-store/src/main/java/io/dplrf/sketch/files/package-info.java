/**
 * Files of the state directory that hold raw state — unnoised sketches, exact counters, record
 * keys — and so must be as protected as the data itself: created owner-only from the start (POSIX
 * permissions given at creation, not fixed afterwards, so no other user can open them in between).
 * No format lives here (each format has its one owner class); nothing here draws randomness.
 * What is shared by every owner lives here: the steps of the crash-safe write ({@link
 * io.dplrf.sketch.files.WriteSteps}, with the seam where tests halt or fail a write) and the
 * error that names a damaged file ({@link io.dplrf.sketch.files.DamagedFileException}).
 */
package io.dplrf.sketch.files;
