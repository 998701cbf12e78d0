package dev.spilljoin.bench;

/**
 * One generated table (R or S) of a workload at a scale, produced on demand: streamed in chunks (constant
 * memory, for loading engines) or materialized as two {@code long[]} columns (for an in-memory join).
 */
public final class TableSource {

    /** Which side of the join a table is, and its SQL name. */
    public enum Role {
        BUILD("r"),
        PROBE("s");

        private final String tableName;

        Role(String tableName) {
            this.tableName = tableName;
        }

        public String tableName() {
            return tableName;
        }
    }

    /** A materialized table: {@code keys[i]} and {@code payloads[i]} are row {@code i}. */
    public record Columns(long[] keys, long[] payloads) {
    }

    private final WorkloadGenerator generator;
    private final Role role;

    TableSource(WorkloadGenerator generator, Role role) {
        this.generator = generator;
        this.role = role;
    }

    public Role role() {
        return role;
    }

    /** Identifies the rows: two sources with the same id and row count hold identical rows. */
    public String id() {
        Workload workload = generator.workload();
        return (role == Role.BUILD ? workload.buildTableId() : workload.probeTableId()) + "/" + rows();
    }

    public int rows() {
        Scale scale = generator.scale();
        return role == Role.BUILD ? scale.nR() : scale.nS();
    }

    /** Generates the rows in order, {@code chunkRows} at a time (the last chunk may be shorter). */
    public <E extends Exception> void forEachChunk(int chunkRows, RowChunkConsumer<E> consumer) throws E {
        if (chunkRows < 1) {
            throw new IllegalArgumentException("chunkRows must be positive, got " + chunkRows);
        }
        int total = rows();
        long[] keys = new long[Math.min(chunkRows, total)];
        long[] payloads = new long[keys.length];
        for (int first = 0; first < total; first += keys.length) {
            int n = Math.min(keys.length, total - first);
            fill(first, keys, payloads, n);
            consumer.accept(keys, payloads, n);
        }
    }

    /** All rows as two columns (16 bytes a row on the heap). */
    public Columns materialize() {
        long[] keys = new long[rows()];
        long[] payloads = new long[keys.length];
        fill(0, keys, payloads, keys.length);
        return new Columns(keys, payloads);
    }

    private void fill(long first, long[] keys, long[] payloads, int n) {
        if (role == Role.BUILD) {
            generator.fillBuild(first, keys, payloads, n);
        } else {
            generator.fillProbe(first, keys, payloads, n);
        }
    }
}
