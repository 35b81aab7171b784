/**
 * Small waiting helpers shared by the threads of the sketch store and the ingest path. Nothing here
 * holds state, draws randomness or owns a format.
 */
package io.dplrf.sketch.concurrent;
