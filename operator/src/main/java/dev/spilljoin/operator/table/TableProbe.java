package dev.spilljoin.operator.table;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.table.HashProbe.RowMasks;

/**
 * The probe of one build table with one batch at a time ({@link HashProbe} over the hash table,
 * {@link DirectIndexProbe} over the direct-index table): what the probe pass and a spilled pair's join need, so that
 * they do not care which table the build rows went into. Resumable: {@link #fill} returns false when the writer is
 * full and continues where it stopped when called again.
 */
public interface TableProbe {
    /** Starts probing {@code probe} (its keys hashed or read here); it must stay valid until {@link #fill} returned true. */
    void start(Batch probe);

    /**
     * Starts probing {@code probe}, whose key hashes and NULL-key bitmap are given, with rows treated apart as
     * {@code masks} say; all arrays must stay unchanged until {@link #fill} returned true.
     */
    void start(Batch probe, long[] keyHashes, long[] keyNulls, RowMasks masks);

    /**
     * Whether {@link #start(Batch, long[], long[], RowMasks)} reads the key hashes it is given (the direct-index
     * table's probe reads the keys themselves), so that a caller may leave them uncomputed.
     */
    boolean readsKeyHashes();

    /** Continues the current batch: true when it is done, false when {@code out} is full (call again after). */
    boolean fill(OutputWriter out);

    /** Whether row {@code row} of the last batch matched (valid once {@link #fill} returned true). */
    boolean matched(int row);

    /** The batch being probed (the one {@link OutputWriter#materialize} needs). */
    Batch batch();

    long probeRows();

    long probeNullKeyRows();
}
