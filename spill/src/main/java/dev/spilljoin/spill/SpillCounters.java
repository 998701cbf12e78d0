package dev.spilljoin.spill;

/**
 * I/O counters of one {@link SpillSpace}: bytes and blocks written and read (as on disk, block headers included),
 * files created, and mapped bytes now and at peak.
 *
 * <p>Updated once per block or per mapping, never per row, so one lock is cheap enough and keeps the figures
 * consistent when the join's workers share a space.
 */
public final class SpillCounters {
    private long bytesWritten;
    private long blocksWritten;
    private long bytesRead;
    private long blocksRead;
    private long filesCreated;
    private long mappedBytes;
    private long peakMappedBytes;

    synchronized void blockWritten(long bytes) {
        blocksWritten++;
        bytesWritten += bytes;
    }

    synchronized void blockRead(long bytes) {
        blocksRead++;
        bytesRead += bytes;
    }

    synchronized void fileCreated() {
        filesCreated++;
    }

    synchronized void mapped(long bytes) {
        mappedBytes += bytes;
        peakMappedBytes = Math.max(peakMappedBytes, mappedBytes);
    }

    synchronized void unmapped(long bytes) {
        mappedBytes -= bytes;
    }

    public synchronized long bytesWritten() {
        return bytesWritten;
    }

    public synchronized long blocksWritten() {
        return blocksWritten;
    }

    public synchronized long bytesRead() {
        return bytesRead;
    }

    public synchronized long blocksRead() {
        return blocksRead;
    }

    public synchronized long filesCreated() {
        return filesCreated;
    }

    /** Bytes mapped right now (0 once every writer and reader is closed). */
    public synchronized long mappedBytes() {
        return mappedBytes;
    }

    public synchronized long peakMappedBytes() {
        return peakMappedBytes;
    }

    @Override
    public synchronized String toString() {
        return "SpillCounters[written=" + ByteSize.format(bytesWritten) + " in " + blocksWritten + " blocks, read="
                + ByteSize.format(bytesRead) + " in " + blocksRead + " blocks, files=" + filesCreated
                + ", peakMapped=" + ByteSize.format(peakMappedBytes) + "]";
    }
}
