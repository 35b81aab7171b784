/**
 * The {@code dplrf} commands ({@link io.dplrf.deploy.cli.Cli}): option parsing, usage texts and
 * one-line errors (exit 2 for a usage mistake, 1 for bad input or a failure). Commands parse their
 * options and call {@code oneshot}, {@code serve} or {@code ingest.produce}; no mechanism lives
 * here.
 */
package io.dplrf.deploy.cli;
