package dev.spilljoin.operator;

/**
 * Tuning and test knobs of a join, immutable. {@code buildSide} forces the build side (null = choose the smaller
 * input by its size hints); tests use it to run both orientations of every join type.
 *
 * @param pageSize        bytes of an off-heap row page (a multiple of 8, at least 64)
 * @param outputBatchRows rows per result batch
 * @param buildSide       forced build side, or null for automatic
 */
public record JoinConfig(int pageSize, int outputBatchRows, Side buildSide) {
    public static final JoinConfig DEFAULT = new JoinConfig(256 * 1024, 1024, null);

    public JoinConfig {
        if (pageSize < 64 || (pageSize & 7) != 0) {
            throw new IllegalArgumentException("pageSize must be a multiple of 8 and at least 64 bytes, got " + pageSize);
        }
        if (outputBatchRows < 1) {
            throw new IllegalArgumentException("outputBatchRows must be at least 1, got " + outputBatchRows);
        }
    }

    public JoinConfig withPageSize(int bytes) {
        return new JoinConfig(bytes, outputBatchRows, buildSide);
    }

    public JoinConfig withOutputBatchRows(int rows) {
        return new JoinConfig(pageSize, rows, buildSide);
    }

    public JoinConfig withBuildSide(Side side) {
        return new JoinConfig(pageSize, outputBatchRows, side);
    }
}
