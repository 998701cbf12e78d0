package dev.spilljoin.operator.table;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.row.GatherScratch;
import dev.spilljoin.operator.row.RowLayout;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Collects result rows as (probe row index, build row ref) pairs and turns them into a result batch of the
 * projected columns, column at a time: the probe's columns, then the build's in the order of their fields in the
 * build rows, so that gathering a build row's variable-width values walks over each of them once
 * ({@link GatherScratch}; in output order, a projection that names a column twice would walk back). Probe index
 * -1 or build ref 0 means that side is NULL (outer padding, or a side the result does not have). Build rows are
 * read through the {@link BuildRowReader} of the table that handed out their refs ({@link #readBuildRowsFrom},
 * called by each producer before it appends: the writer is made before the build, and serves the resident table,
 * then each spilled pair's table in turn); the {@link RowLayout} maps projected columns to the build rows' fields.
 *
 * <p>A batch is bounded by rows ({@code capacity}) and by bytes ({@code byteLimit}): each pair adds the bytes of
 * its values an append can know cheaply, from above: the probe row's projected variable-width values (which the
 * producer sizes once per probe batch, {@link #probeRowBytes}) and the whole serialized build row when a
 * variable-width build column is projected ({@link BuildRowReader#rowBytes}). Pending pairs count as soon as they are
 * appended, so one large probe row matching many build rows cannot pile up either. Invariant: the batch is full when
 * its rows reach the capacity or its counted bytes reach the limit, so it holds at most the limit plus one row's
 * bytes; after {@link #materialize}, {@code room() == 0} exactly when {@link #isFull()}.
 *
 * <p>Build rows are counted ahead by their table's bound ({@link BuildRowReader#maxRowBytes}): an append only counts
 * its build row as pending, and {@link #room()} sizes the pending build rows one by one ({@code rowBytes}) only when
 * the bound could reach the limit; {@link #materialize} sizes the rest after gathering them (their values are then
 * in cache). So {@code room()} answers as if every row had been sized when appended, while a batch far below its
 * limit (the usual case) sizes each build row once, after its values were loaded, instead of loading a row of the
 * table (a cache miss with a direct-index table) per append.
 *
 * <p>Protocol: the producer {@link #append}s while {@link #room()} &gt; 0 (or appends a probe batch's hits with
 * {@link #appendHits}, which asks {@link #room()} itself) and calls {@link #materialize} before the
 * probe batch it references goes away; when {@link #isFull()} (or at the end) the batch from {@link #batch()} is
 * handed out, then {@link #clear()}ed for reuse.
 */
public final class OutputWriter {
    private final Batch out;
    private final int capacity;
    private final long byteLimit;
    /** The counted bytes of the rows materialized into {@code out}, shared with the writer of the other orientation. */
    private final MaterializedBytes materialized;
    /** Whether a variable-width build column is projected (then a build row counts its serialized length). */
    private final boolean countsBuildRows;
    /** The projected variable-width probe columns, whose values a probe row counts. */
    private final int[] probeVariableColumns;
    /** Whether any row counts bytes (a variable-width column projected from either side): else only rows count. */
    private final boolean countsBytes;
    private final boolean[] fromProbe;
    /** Whether some output column comes from the probe side. */
    private final boolean projectsProbe;
    private final int[] sourceColumn;
    private final int[] buildField;
    /** The table whose refs are pending; set by the producer ({@link #readBuildRowsFrom}). */
    private BuildRowReader reader;
    private final int[] probeRows;
    private final long[] buildRows;
    /** The output columns in the order {@link #materialize} fills them: the probe's, then the build's by field. */
    private final int[] fillOrder;
    /** The tables' scratch for {@link BuildRowReader#gather} (this writer's own: a table is shared by workers). */
    private final GatherScratch gatherScratch;
    /** The pair each row of the result batch was made of (see {@link #probeRowOf}, {@link #buildRowOf}). */
    private int[] rowProbe;
    private long[] rowBuild;
    private int pending;
    /** The counted bytes of the pending rows (of their build rows, those before {@code sizedBuildRows}). */
    private long pendingBytes;
    /** The pending rows from this index on have build rows not yet in {@code pendingBytes} (when counted at all). */
    private int sizedBuildRows;
    /** {@code reader}'s {@link BuildRowReader#maxRowBytes}. */
    private long maxBuildRowBytes;

    /** The counted bytes of a result batch's materialized rows (one per batch, shared by both orientations). */
    private static final class MaterializedBytes {
        long bytes;
    }

    /**
     * @param capacity  the most rows of a result batch
     * @param byteLimit the counted bytes at which a result batch is full (at least 1)
     */
    public OutputWriter(Schema outputSchema, List<ColumnRef> projection, Side buildSide, RowLayout buildLayout,
                        int capacity, long byteLimit) {
        this(new Batch(outputSchema, capacity), new MaterializedBytes(), projection, buildSide, buildLayout, capacity,
                byteLimit);
    }

    private OutputWriter(Batch out, MaterializedBytes materialized, List<ColumnRef> projection, Side buildSide,
                         RowLayout buildLayout, int capacity, long byteLimit) {
        if (byteLimit < 1) {
            throw new IllegalArgumentException("a result batch's byte limit must be at least 1, got " + byteLimit);
        }
        this.out = out;
        this.materialized = materialized;
        this.capacity = capacity;
        this.byteLimit = byteLimit;
        int n = projection.size();
        fromProbe = new boolean[n];
        sourceColumn = new int[n];
        buildField = new int[n];
        boolean buildVariable = false;
        boolean anyProbe = false;
        int probeVariable = 0;
        for (int c = 0; c < n; c++) {
            ColumnRef ref = projection.get(c);
            fromProbe[c] = ref.side() != buildSide;
            anyProbe |= fromProbe[c];
            sourceColumn[c] = ref.column();
            buildField[c] = fromProbe[c] ? -1 : buildLayout.fieldOfColumn(ref.column());
            boolean variable = out.schema().type(c).isVariableWidth();
            buildVariable |= variable && !fromProbe[c];
            probeVariable += variable && fromProbe[c] ? 1 : 0;
        }
        this.countsBuildRows = buildVariable;
        this.projectsProbe = anyProbe;
        this.probeVariableColumns = new int[probeVariable];
        for (int c = 0, k = 0; c < n; c++) {
            if (fromProbe[c] && out.schema().type(c).isVariableWidth()) {
                probeVariableColumns[k++] = sourceColumn[c];
            }
        }
        this.countsBytes = buildVariable || probeVariable > 0;
        this.probeRows = new int[capacity];
        this.buildRows = new long[capacity];
        this.fillOrder = IntStream.range(0, n).boxed().sorted(Comparator.comparingInt(c -> buildField[c]))
                .mapToInt(Integer::intValue).toArray();
        this.gatherScratch = new GatherScratch(capacity);
    }

    /**
     * A writer into the same result batch for the other orientation: rows of {@code buildSide} come from a table of
     * rows of {@code buildLayout}, the other side's from probe batches (a spilled pair joined with roles reversed).
     * Both writers see the same batch; each materializes its own pending rows.
     */
    public OutputWriter reoriented(List<ColumnRef> projection, Side buildSide, RowLayout buildLayout) {
        return new OutputWriter(out, materialized, projection, buildSide, buildLayout, capacity, byteLimit);
    }

    /**
     * Reads the build refs appended from now on through {@code rows} (the table they come from); a producer calls
     * this before it appends. Refs of another table must have been materialized first.
     */
    public void readBuildRowsFrom(BuildRowReader rows) {
        if (rows != reader) {
            if (pending > 0) {
                throw new IllegalStateException("result rows of another table are pending; materialize them first");
            }
            reader = rows;
            maxBuildRowBytes = rows.maxRowBytes();
        }
    }

    /** Rows that can still be appended before the batch is full: 0 once its counted bytes reach the limit. */
    public int room() {
        long counted = materialized.bytes + pendingBytes;
        if (countsBuildRows && counted + (pending - sizedBuildRows) * maxBuildRowBytes >= byteLimit) {
            sizeBuildRows();
            counted = materialized.bytes + pendingBytes;
        }
        return counted >= byteLimit ? 0 : capacity - out.rowCount() - pending;
    }

    /** Counts the pending build rows not yet counted. */
    private void sizeBuildRows() {
        BuildRowReader rows = reader;
        long bytes = 0;
        for (int j = sizedBuildRows; j < pending; j++) {
            long row = buildRows[j];
            bytes += row == 0 ? 0 : rows.rowBytes(row);
        }
        pendingBytes += bytes;
        sizedBuildRows = pending;
    }

    /**
     * The bytes each row of {@code probe} counts when appended by this writer (its projected variable-width values),
     * into {@code into} if large enough (else a new array), for {@link #append}; once per probe batch.
     */
    public int[] probeRowBytes(Batch probe, int[] into) {
        int n = probe.rowCount();
        int[] sizes = into.length >= n ? into : new int[n];
        Arrays.fill(sizes, 0, n, 0);
        for (int column : probeVariableColumns) {
            int[] offsets = probe.column(column).offsets();
            for (int i = 0; i < n; i++) {
                sizes[i] += offsets[i + 1] - offsets[i];
            }
        }
        return sizes;
    }

    /** Appends a result row with the build side only (probe NULL). */
    public void append(long buildRow) {
        append(-1, 0, buildRow);
    }

    /**
     * Appends a result row; {@code probeBytes} is the probe row's count from {@link #probeRowBytes} (0 when
     * {@code probeRow} is -1).
     */
    public void append(int probeRow, int probeBytes, long buildRow) {
        probeRows[pending] = probeRow;
        buildRows[pending] = buildRow;
        pending++;
        pendingBytes += probeBytes;
    }

    /**
     * Appends a pair (probe row {@code i}, build row {@code refs[i]}) for each row {@code i} of {@code [from, to)}
     * whose ref is not 0 (0: no match, no row) while there is room, as {@link #append} after {@link #room()} would;
     * returns the first row not looked at ({@code to} when every one was). Branch-free per row: every row is written
     * at the next pending index, which only a hit advances (when a spilled probe pass keeps a third of the rows, a
     * branch on each row's ref mispredicted on every third row). The bytes are bounded as {@link #room()} bounds them:
     * a row is looked at only while the pending rows' bytes, their unsized build rows counted at the table's bound, stay
     * below the limit; at the bound {@link #room()} sizes them and says whether more fit.
     */
    public int appendHits(long[] refs, int[] probeBytes, int from, int to) {
        return appendHitsOrPadded(refs, null, probeBytes, from, to);
    }

    /**
     * {@link #appendHits} when every ref of {@code [from, to)} is a build row's (none is 0: each of those probe rows
     * matched, as in a foreign-key join): while there is room the refs are copied as they are and the probe rows
     * numbered in order, nothing chosen row by row.
     */
    public int appendEveryRow(long[] refs, int[] probeBytes, int from, int to) {
        if (countsBytes) {
            return appendHits(refs, probeBytes, from, to);
        }
        int rows = Math.min(to - from, room());
        System.arraycopy(refs, from, buildRows, pending, rows);
        for (int j = 0; j < rows; j++) {
            probeRows[pending + j] = from + j;
        }
        pending += rows;
        return from + rows;
    }

    /**
     * As {@link #appendHits}, and also each row without a match whose bit in {@code quiet} is 0, padded (build row 0):
     * a probe-side outer join's rows, unmatched ones included but for those {@code quiet} holds back (rows deferred
     * to a spill file); {@code quiet} null holds every unmatched row back. Branch-free per row alike (an outer join
     * whose probe rows mostly miss, W3L's, mispredicted a branch per row on whether it matched).
     */
    public int appendHitsOrPadded(long[] refs, long[] quiet, int[] probeBytes, int from, int to) {
        if (quiet == null && !countsBytes) {
            return appendHitsUncounted(refs, from, to);
        }
        int i = from;
        while (i < to) {
            int room = room();
            if (room == 0) {
                return i;
            }
            long perRow = countsBuildRows ? maxBuildRowBytes : 0;
            long free = byteLimit - materialized.bytes - pendingBytes - (pending - sizedBuildRows) * perRow;
            int p = pending;
            int end = p + room;
            long probeSum = 0;
            long bound = 0;
            for (; i < to && p < end && bound < free; i++) {
                long ref = refs[i];
                probeRows[p] = i;
                buildRows[p] = ref;
                long padded = quiet == null ? 0 : ~quiet[i >>> 6] >>> i & 1L;
                int emit = (int) ((ref | -ref) >>> 63 | padded); // 1 for any ref but 0 (a negative one included)
                long added = probeBytes[i] & -emit;
                probeSum += added;
                bound += added + (perRow & -emit);
                p += emit;
            }
            pending = p;
            pendingBytes += probeSum;
        }
        return i;
    }

    /**
     * {@link #appendHits} for a writer that counts no row's bytes (no variable-width column projected: every row
     * counts 0): only the room bounds the rows, so the pairs are all it keeps (W1's probe spent a fifth of its time
     * in the counting loop). Up to 64 rows at a time: a mask of those with a ref but 0 (a negative one included), taken
     * without a branch, then its set bits, one pair each, so that misses cost a bit each and no store (a loop that
     * wrote every row's pair and advanced by 0 or 1 made each row wait for the one before: W3's probe, a tenth of
     * whose rows match, spent a quarter of its time there).
     */
    private int appendHitsUncounted(long[] refs, int from, int to) {
        int p = pending;
        int end = p + room();
        int i = from;
        while (i < to && p < end) {
            int chunk = Math.min(Long.SIZE, to - i);
            long hits = 0;
            for (int j = 0; j < chunk; j++) {
                long ref = refs[i + j];
                hits |= ((ref | -ref) >>> 63) << j;
            }
            int row = i - 1;
            while (hits != 0 && p < end) {
                row = i + Long.numberOfTrailingZeros(hits);
                probeRows[p] = row;
                buildRows[p] = refs[row];
                p++;
                hits &= hits - 1;
            }
            i = p == end ? row + 1 : i + chunk; // a full batch ends after its last pair: the next call goes on there
        }
        pending = p;
        return i;
    }

    /** Copies the pending rows into the result batch; {@code probe} is the batch the probe indexes refer to. */
    public void materialize(Batch probe) {
        if (pending == 0) {
            return;
        }
        int start = out.rowCount();
        gatherScratch.newRows();
        boolean probeRun = probe != null && projectsProbe && isRun(probeRows, pending);
        for (int c : fillOrder) {
            ColumnVector target = out.column(c);
            if (fromProbe[c]) {
                copyProbeColumn(probe, sourceColumn[c], target, start, probeRun);
            } else {
                gatherBuildColumn(buildField[c], target, start);
            }
        }
        if (rowProbe != null) {
            System.arraycopy(probeRows, 0, rowProbe, start, pending);
            System.arraycopy(buildRows, 0, rowBuild, start, pending);
        }
        if (countsBuildRows) {
            sizeBuildRows();
        }
        sizedBuildRows = 0;
        out.setRowCount(start + pending);
        pending = 0;
        materialized.bytes += pendingBytes;
        pendingBytes = 0;
    }

    /** Field {@code field} of the pending build rows; all NULL when no table handed out refs (every ref is 0). */
    private void gatherBuildColumn(int field, ColumnVector target, int start) {
        if (reader != null) {
            reader.gather(field, buildRows, pending, gatherScratch, target, start);
            return;
        }
        for (int j = 0; j < pending; j++) {
            target.setNull(start + j);
        }
    }

    /** The pending rows' values of probe column {@code column}; {@code run}: they are consecutive probe rows. */
    private void copyProbeColumn(Batch probe, int column, ColumnVector target, int start, boolean run) {
        int n = pending;
        int[] rows = probeRows;
        if (probe == null) {
            for (int j = 0; j < n; j++) {
                target.setNull(start + j);
            }
            return;
        }
        ColumnVector src = probe.column(column);
        if (run) {
            target.copyRows(src, rows[0], n, start);
            return;
        }
        boolean nulls = src.mayHaveNulls();
        switch (src.type()) {
            case BIGINT -> {
                long[] v = src.longs();
                for (int j = 0; j < n; j++) {
                    int i = rows[j];
                    if (i < 0 || nulls && src.isNull(i)) {
                        target.setNull(start + j);
                    } else {
                        target.setLong(start + j, v[i]);
                    }
                }
            }
            case INTEGER -> {
                int[] v = src.ints();
                for (int j = 0; j < n; j++) {
                    int i = rows[j];
                    if (i < 0 || nulls && src.isNull(i)) {
                        target.setNull(start + j);
                    } else {
                        target.setInt(start + j, v[i]);
                    }
                }
            }
            case DOUBLE -> {
                double[] v = src.doubles();
                for (int j = 0; j < n; j++) {
                    int i = rows[j];
                    if (i < 0 || nulls && src.isNull(i)) {
                        target.setNull(start + j);
                    } else {
                        target.setDouble(start + j, v[i]);
                    }
                }
            }
            case BOOLEAN -> {
                boolean[] v = src.booleans();
                for (int j = 0; j < n; j++) {
                    int i = rows[j];
                    if (i < 0 || nulls && src.isNull(i)) {
                        target.setNull(start + j);
                    } else {
                        target.setBoolean(start + j, v[i]);
                    }
                }
            }
            case VARCHAR, VARBINARY -> {
                int[] offsets = src.offsets();
                byte[] bytes = src.bytes();
                for (int j = 0; j < n; j++) {
                    int i = rows[j];
                    if (i < 0 || nulls && src.isNull(i)) {
                        target.setNull(start + j);
                    } else {
                        target.setBytes(start + j, bytes, offsets[i], offsets[i + 1] - offsets[i]);
                    }
                }
            }
        }
    }

    /**
     * Whether the first {@code n} probe rows are consecutive rows of the probe batch (no -1): then their values are
     * copied as one run ({@link ColumnVector#copyRows}), as when every probe row matched one build row (a join on a
     * unique key), instead of value by value.
     */
    private static boolean isRun(int[] rows, int n) {
        int first = rows[0];
        boolean run = first >= 0;
        for (int j = 1; j < n; j++) {
            run &= rows[j] == first + j;
        }
        return run;
    }

    /**
     * Keeps, from now on, the pair each materialized result row was made of ({@link #probeRowOf},
     * {@link #buildRowOf}): for a writer whose rows are looked at again (the extra condition's candidate pairs).
     */
    public void keepPairs() {
        if (rowProbe == null) {
            rowProbe = new int[capacity];
            rowBuild = new long[capacity];
        }
    }

    /** The probe row index result row {@code row} was made of (-1: none; {@link #keepPairs} first), until {@link #clear()}. */
    public int probeRowOf(int row) {
        return rowProbe[row];
    }

    /** The build row result row {@code row} was made of (0: none; {@link #keepPairs} first), until {@link #clear()}. */
    public long buildRowOf(int row) {
        return rowBuild[row];
    }

    public boolean isFull() {
        return out.rowCount() == capacity || materialized.bytes >= byteLimit;
    }

    /** The counted bytes of the rows materialized into the current batch (the byte bound's measure). */
    public long countedBytes() {
        return materialized.bytes;
    }

    /** Rows materialized into the current batch. */
    public int rowCount() {
        return out.rowCount();
    }

    public Batch batch() {
        return out;
    }

    public void clear() {
        out.reset();
        materialized.bytes = 0;
    }
}
