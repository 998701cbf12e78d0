package dev.spilljoin.cli;

/**
 * The opened {@code --output} and {@code --stats} targets of a running join ({@link OutputTargets#open()}); null
 * for a flag not given. {@link #discard()} deletes both uncommitted temporaries at once, from the Ctrl-C hook's
 * thread; {@link #close()} closes both, deleting what was not committed.
 *
 * @param rows      where the rows go, or null for standard output
 * @param stats     where the stats JSON goes, or null for none
 * @param leftovers what the sweep of the targets' directories did
 */
record RunOutputs(OutputFile rows, OutputFile stats, LeftoverOutputSweep.Result leftovers) implements AutoCloseable {
    void discard() {
        if (rows != null) {
            rows.discard();
        }
        if (stats != null) {
            stats.discard();
        }
    }

    @Override
    public void close() {
        if (rows != null) {
            rows.close();
        }
        if (stats != null) {
            stats.close();
        }
    }
}
