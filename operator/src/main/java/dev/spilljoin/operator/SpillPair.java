package dev.spilljoin.operator;

import dev.spilljoin.spill.SpillFile;

/**
 * One spilled partition pair waiting to be joined: the build rows and the probe rows of one partition at one level
 * (a null file holds no rows). {@code index} is the partition's number at its level; {@code stuck} marks a child
 * that kept at least 90% of its parent's build rows when re-partitioned (a hot key, or a few): re-partitioning it
 * again would not help, so if it does not fit it takes the nested-loop path. {@code fromSketch} marks the pair of the
 * heavy keys the build's sketch found (stuck from the start).
 */
record SpillPair(SpillFile build, SpillFile probe, int level, int index, boolean stuck, boolean fromSketch) {
    long buildRows() {
        return build == null ? 0 : build.rowCount();
    }

    long probeRows() {
        return probe == null ? 0 : probe.rowCount();
    }
}
