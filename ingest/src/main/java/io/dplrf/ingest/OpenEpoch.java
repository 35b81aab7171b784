package io.dplrf.ingest;

/**
 * The epoch the ingest loop is filling, as of its last poll ({@link IngestLoop#openEpoch}).
 * Immutable.
 *
 * <p>{@code updatePositions} is an exact count: operator endpoints only. The times are those of
 * the epoch rule ({@link IngestConfig}): with {@code epochLength} the epoch closes at {@code
 * startMillis + epochLength}, a function of the clock and of the time the first record was read.
 *
 * @param epoch its number, 1-based: the epochs closed so far plus one
 * @param updatePositions update positions read in it (what {@code epochUpdates} counts)
 * @param startMillis wall-clock milliseconds at which it opened: the previous close, or when the
 *     run's first record was read (kept across restarts by the snapshot); 0 while the run has
 *     read no record
 * @param idleSinceMillis when the loop last read a record, or started consuming if it has read
 *     none since (what the idle rule measures from); 0 before it starts
 * @param lastRecordMillis when the loop last read a record; 0 while this process has read none
 *     (the snapshot does not keep it: a restart is not a record)
 */
public record OpenEpoch(int epoch, long updatePositions, long startMillis, long idleSinceMillis,
    long lastRecordMillis) {}
