package dev.spilljoin.spill;

import java.io.IOException;
import java.nio.file.Path;

/** A spill block failed its checksum or its header is impossible: the file is damaged; the join must fail. */
public final class SpillCorruptionException extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final long blockOffset;

    SpillCorruptionException(Path file, long blockOffset, String problem) {
        super("spill file " + file + " is corrupt at block offset " + blockOffset + ": " + problem
                + " (the disk or something writing to the spill directory damaged it; rerun the join)");
        this.file = file;
        this.blockOffset = blockOffset;
    }

    public Path file() {
        return file;
    }

    public long blockOffset() {
        return blockOffset;
    }
}
