/**
 * File formats at the boundary of the command line: matrix input (Matrix Market and CSV, read as a
 * stream of turnstile updates), NumPy {@code .npy} output, a small JSON writer and parser, atomic
 * output directories, and the seeded synthetic rank-k input of the demo and the benchmarks.
 *
 * <p>Nothing here knows about privacy, sketches or Kafka: these classes move numbers between files
 * and memory. Every input error is an {@link io.dplrf.deploy.io.InputException} whose message is
 * one line naming the file and the line number, fit to print on stderr as is.
 */
package io.dplrf.deploy.io;
