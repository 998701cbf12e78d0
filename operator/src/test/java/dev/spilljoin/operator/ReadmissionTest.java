package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.testing.CountAndSum;
import dev.spilljoin.operator.testing.GeneratedSource;
import dev.spilljoin.operator.testing.JoinRunner;
import dev.spilljoin.operator.testing.Rows;
import dev.spilljoin.spill.MemoryReservation;
import dev.spilljoin.operator.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Readmission ({@link PartitionedBuild}): a build side whose rows overflow the budget but whose direct-index table
 * fits it goes into the table after the build pass, the spilled partitions read back from their files. Each join
 * here is checked against the same join with a budget that spills nothing (the in-memory path, which the other tests
 * check against the nested-loop oracle), as a multiset: every join type, the build on either side, one, two and four
 * workers, all three driving forms, NULL keys and payloads on both sides, VARCHAR payloads that fit a table entry
 * and longer ones that go to its heap. The budget is the in-memory join's peak less its rows' pages (plus room for
 * the passes over spilled rows): the rows spill, the table fits. Asserted from the stats: partitions were readmitted
 * (in most joins: see the end); with every partition resident no probe row spilled and no pair was joined; the peak
 * stayed within the budget; afterwards nothing is reserved and the spill root is empty. Short texts take narrow
 * table entries when the wide ones leave rows out, after a spill and without one. A probe row of kilobytes keeps its
 * staging when readmission seals the spilled files and then builds no table. Seeded; replay with
 * {@code -Dseed=<seed>}.
 */
class ReadmissionTest {
    private static final int BUILD_ROWS = 60_000;
    /** What narrow entries save on {@link #shortTextBuildSide}'s texts: 16 bytes each, against 11 five to a line. */
    private static final long NARROW_SAVES = BUILD_ROWS * 16L - (BUILD_ROWS / 5 + 1) * 64L;
    /** Room for what reading spilled rows back takes beside the table: readers, scratch pages, a writer's share. */
    private static final long PASS_ROOM = 256 << 10;

    @TempDir
    Path spillRoot;

    private static Schema schema(String prefix) {
        return Schema.of(Column.of(prefix + "k", ColumnType.BIGINT), Column.of(prefix + "a", ColumnType.BIGINT),
                Column.of(prefix + "s", ColumnType.VARCHAR));
    }

    /**
     * A build side: every key of {@code [base, base + rows * 5 / 4)} at most once, shuffled, one row in 20 with a
     * NULL key; payloads NULL now and then, texts of up to 12 bytes (in a table entry) or 20-40 (in its heap).
     */
    private static List<Object[]> buildSide(SplittableRandom r, long base, int rows) {
        List<Long> keys = new ArrayList<>();
        for (long k = 0; k < rows * 5L / 4; k++) {
            keys.add(base + k);
        }
        Collections.shuffle(keys, new Random(r.nextLong()));
        List<Object[]> out = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            out.add(row(r, r.nextInt(20) == 0 ? null : keys.get(i)));
        }
        return out;
    }

    /**
     * A build side of short texts (the CSV case's payloads): keys {@code [0, BUILD_ROWS)} shuffled, texts of digits up
     * to 10 bytes, the longest exactly 10 (so narrow entries take 11 bytes, five to a line), NULL one in ten when
     * {@code nulls}.
     */
    private static List<Object[]> shortTextBuildSide(SplittableRandom r, boolean nulls) {
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < BUILD_ROWS; i++) {
            String text = nulls && r.nextInt(10) == 0 ? null : Integer.toString(r.nextInt(1_000_000_000));
            rows.add(new Object[] {(long) i, r.nextLong(), i == 0 ? "1234567890" : text});
        }
        Collections.shuffle(rows, new Random(r.nextLong()));
        return rows;
    }

    /** A probe side: keys from a range a little wider than the build's, repeated, some NULL. */
    private static List<Object[]> probeSide(SplittableRandom r, long base, int rows, int buildRows) {
        List<Object[]> out = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            out.add(row(r, r.nextInt(20) == 0 ? null : base - 100 + r.nextInt(buildRows * 5 / 4 + 200)));
        }
        return out;
    }

    private static Object[] row(SplittableRandom r, Long key) {
        int kind = r.nextInt(10);
        String text = kind == 0 ? null : kind == 1 ? "long text " + "x".repeat(10 + r.nextInt(30))
                : Integer.toString(r.nextInt(1_000_000));
        return new Object[] {key, r.nextInt(10) == 0 ? null : r.nextLong(), text};
    }

    private static List<ColumnRef> projection(JoinType type) {
        List<ColumnRef> p = new ArrayList<>();
        for (Side side : Side.values()) {
            if (type.returnedSideOnly() == null || type.returnedSideOnly() == side) {
                for (int c = 0; c < 3; c++) {
                    p.add(new ColumnRef(side, c));
                }
            }
        }
        return p;
    }

    /** {@link #join} of the three-column schemas with output and batch sizes drawn from {@code r}. */
    private JoinRunner.Result run(List<Object[]> leftRows, List<Object[]> rightRows, JoinType type, Side build,
                                  int threads, long budget, JoinRunner.Mode mode, SplittableRandom r, String what)
            throws IOException {
        JoinConfig config = JoinConfig.builder().buildSide(build).spillDirectory(spillRoot).threads(threads)
                .rowsPerWorker(0)
                .outputBatchRows(1 + r.nextInt(2000)).build();
        int leftBatchRows = 1 + r.nextInt(3000);
        return join(schema("l"), leftRows, leftBatchRows, schema("r"), rightRows, 1 + r.nextInt(3000), type,
                projection(type), config, budget, mode, what);
    }

    /**
     * Runs the join of {@code leftRows} and {@code rightRows} (in batches of the rows given) at {@code budget} bytes;
     * checks what every join must leave behind; returns rows and stats.
     */
    private JoinRunner.Result join(Schema leftSchema, List<Object[]> leftRows, int leftBatchRows, Schema rightSchema,
                                   List<Object[]> rightRows, int rightBatchRows, JoinType type,
                                   List<ColumnRef> projection, JoinConfig config, long budget, JoinRunner.Mode mode,
                                   String what) throws IOException {
        try (MemoryReservation root = MemoryReservation.root("readmission", budget)) {
            JoinSpec spec = JoinSpec.builder(leftSchema, rightSchema).on(0, 0).joinType(type)
                    .projection(projection).reservation(root).config(config).build();
            JoinRunner.Result result = JoinRunner.run(spec, Rows.toBatches(leftSchema, leftRows, leftBatchRows),
                    Rows.toBatches(rightSchema, rightRows, rightBatchRows), mode, root);
            assertThat(root.reserved()).as(what).isZero();
            assertThat(root.peakReserved()).as(what).isLessThanOrEqualTo(budget);
            try (var files = Files.list(spillRoot)) {
                assertThat(files).as("spill root after " + what).isEmpty();
            }
            return result;
        }
    }

    /**
     * W1's shape (a dense unique BIGINT key and a BIGINT payload: 28 bytes a row in memory, 8 and a bit in the table)
     * at a budget that holds half of the rows: every partition goes into the table, on one worker and on two, so
     * no probe row spills and no pair is joined; the count and sum are the in-memory join's.
     */
    @Test
    void aW1ShapedBuildSideIsReadmittedWhole() {
        for (int threads : new int[] {1, 2}) {
            CountAndSum expected = w1(threads, 64L << 20);
            CountAndSum result = new CountAndSum();
            JoinStats stats;
            long budget = 3L << 20;
            try (MemoryReservation root = MemoryReservation.root("w1", budget)) {
                try (HashJoin join = HashJoin.create(w1Spec(root, threads))) {
                    join.run(GeneratedSource.w1Build(200_000), GeneratedSource.w1Probe(1_000_000, 200_000), result);
                    stats = join.stats();
                }
                assertThat(root.reserved()).isZero();
                assertThat(root.peakReserved()).isLessThanOrEqualTo(budget);
            }
            String context = "threads=" + threads + " " + stats.toJson();
            assertThat(result.count()).as(context).isEqualTo(expected.count()).isEqualTo(1_000_000);
            assertThat(result.sum()).as(context).isEqualTo(expected.sum());
            assertThat(stats.spilledBytesBuild()).as(context).isPositive();
            assertThat(stats.readmittedPartitions()).as(context).isPositive();
            assertThat(stats.residentPartitions()).as(context).isEqualTo(stats.fanout());
            assertThat(stats.spilledBytesProbe()).as(context).isZero();
            assertThat(stats.partitions()).as(context).isZero();
        }
    }

    private CountAndSum w1(int threads, long budget) {
        CountAndSum result = new CountAndSum();
        try (MemoryReservation root = MemoryReservation.root("w1 in memory", budget);
             HashJoin join = HashJoin.create(w1Spec(root, threads))) {
            join.run(GeneratedSource.w1Build(200_000), GeneratedSource.w1Probe(1_000_000, 200_000), result);
            assertThat(join.stats().spilledBytesBuild()).isZero();
        }
        return result;
    }

    private JoinSpec w1Spec(MemoryReservation root, int threads) {
        return JoinSpec.builder(GeneratedSource.SCHEMA, GeneratedSource.SCHEMA).on("k", "k")
                .project(Side.LEFT, "p").project(Side.RIGHT, "p").reservation(root)
                .config(JoinConfig.builder().buildSide(Side.LEFT).threads(threads).rowsPerWorker(0)
                        .spillDirectory(spillRoot).build())
                .build();
    }

    /**
     * Short texts (the CSV case's payloads: at most 10 bytes) at budgets stepping down from one that holds the wide
     * entries' table beside what the passes need: every join equals the in-memory one, and at some of them the build
     * asks for narrow entries (a table smaller than the in-memory join's by what they save) and every partition goes
     * into that table, so no probe row spills.
     */
    @Test
    void shortTextsTakeNarrowEntriesWhenOnlyTheyLetEveryPartitionIn() throws IOException {
        long seed = Seeds.logged("ReadmissionTest narrow");
        SplittableRandom r = new SplittableRandom(seed);
        List<Object[]> buildRows = shortTextBuildSide(r, true);
        List<Object[]> probeRows = probeSide(r, 0, 2 * BUILD_ROWS, BUILD_ROWS);
        JoinRunner.Result inMemory = run(probeRows, buildRows, JoinType.INNER, Side.RIGHT, 1, 8L << 20,
                JoinRunner.Mode.SINK, r, "seed=" + seed + " in memory");
        long wideTable = inMemory.stats().tableBytes();
        long top = inMemory.stats().peakReservedBytes() - inMemory.stats().rowBytes() + 3 * PASS_ROOM;
        int narrowWhole = 0;
        for (int step = 0; step < 12; step++) {
            long budget = top - step * NARROW_SAVES / 3;
            int threads = 1 + step % 2;
            JoinStats stats = innerJoinAsInMemory(probeRows, buildRows, threads, budget, inMemory, r,
                    "seed=" + seed + " budget=" + budget + " threads=" + threads);
            String context = "seed=" + seed + " " + stats.toJson();
            if (stats.residentPartitions() == stats.fanout() && stats.tableBytes() <= wideTable - NARROW_SAVES) {
                narrowWhole++;
                assertThat(stats.readmittedPartitions()).as(context).isPositive();
                assertThat(stats.spilledBytesProbe()).as(context).isZero();
            }
        }
        assertThat(narrowWhole).as("joins whose narrow table took every partition, seed=%d", seed).isPositive();
    }

    /**
     * Without a spill: a build of short texts whose rows fit the budget but whose table of wide entries does not fit
     * beside them takes narrow entries instead of spilling a partition. At budgets stepping down from the in-memory
     * join's peak (plus room for the sketches a tight budget takes), every join equals the in-memory one, and at some
     * of them nothing spills while the table is smaller than the in-memory join's by exactly what narrow entries save.
     */
    @Test
    void shortTextsTakeNarrowEntriesRatherThanSpillAPartition() throws IOException {
        long seed = Seeds.logged("ReadmissionTest in-memory narrow");
        SplittableRandom r = new SplittableRandom(seed);
        List<Object[]> buildRows = shortTextBuildSide(r, false);
        List<Object[]> probeRows = probeSide(r, 0, 2 * BUILD_ROWS, BUILD_ROWS);
        JoinRunner.Result inMemory = run(probeRows, buildRows, JoinType.INNER, Side.RIGHT, 1, 8L << 20,
                JoinRunner.Mode.SINK, r, "seed=" + seed + " in memory");
        long top = inMemory.stats().peakReservedBytes() + PASS_ROOM;
        int narrowInMemory = 0;
        for (int step = 0; step < 8; step++) {
            long budget = top - step * NARROW_SAVES / 4;
            JoinStats stats = innerJoinAsInMemory(probeRows, buildRows, 1, budget, inMemory, r,
                    "seed=" + seed + " budget=" + budget);
            String context = "seed=" + seed + " " + stats.toJson();
            if (stats.spilledBytesBuild() == 0 && stats.tableBytes() < inMemory.stats().tableBytes()) {
                narrowInMemory++;
                assertThat(stats.tableBytes()).as(context).isEqualTo(inMemory.stats().tableBytes() - NARROW_SAVES);
            }
        }
        assertThat(narrowInMemory).as("joins that took narrow entries without a spill, seed=%d", seed).isPositive();
    }

    /**
     * The inner join of {@code probeRows} (left) and {@code buildRows} (the build side, right) on {@code threads}
     * workers at {@code budget}, checked to give {@code inMemory}'s rows as a multiset; returns its stats.
     */
    private JoinStats innerJoinAsInMemory(List<Object[]> probeRows, List<Object[]> buildRows, int threads,
                                          long budget, JoinRunner.Result inMemory, SplittableRandom r, String what)
            throws IOException {
        JoinRunner.Result result = run(probeRows, buildRows, JoinType.INNER, Side.RIGHT, threads, budget,
                JoinRunner.Mode.SINK, r, what);
        assertThat(Rows.multiset(result.rows())).as(what + " " + result.stats().toJson())
                .isEqualTo(Rows.multiset(inMemory.rows()));
        return result.stats();
    }

    /**
     * A probe row of kilobytes at a budget of 64 kB on four workers, after a build whose spilled partitions' files
     * were sealed for readmission, which then found no table to build (keys in a wide range): the memory their writers
     * gave back to the budget is what the probe's writers take when the build hands its writer over, so the table
     * built after it must not take that memory too, or the hand-over takes the probe's staging and the row no longer
     * fits ({@link RowTooLargeException}, "need 93kB", in a full join of Parquet parts the CLI's fuzz test drew). The
     * shape of that case: a build of short rows, a probe of a fifth NULL keys and one row in nine holding a text of
     * 3,000 bytes. Three join types in every driving form equal the join in memory; peak within budget, no file left.
     */
    @Test
    void aProbeRowOfKilobytesKeepsItsStagingWhenReadmissionGivesUp() throws IOException {
        long seed = Seeds.logged("ReadmissionTest large probe row");
        SplittableRandom r = new SplittableRandom(seed);
        long[] keys = new long[1_900];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = -(1L << 52) + 1000L * r.nextLong(1L << 40);
        }
        List<Object[]> buildRows = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            buildRows.add(new Object[] {keys[r.nextInt(keys.length)], r.nextInt(3) == 0 ? null : r.nextLong()});
        }
        List<Object[]> probeRows = new ArrayList<>();
        for (int i = 0; i < 2_600; i++) {
            Long key = r.nextInt(5) == 0 ? null : keys[r.nextInt(keys.length)] + (r.nextInt(4) == 0 ? 1 : 0);
            String text = r.nextInt(9) == 0 ? "x".repeat(3_000) : Integer.toString(r.nextInt());
            probeRows.add(new Object[] {key, r.nextLong(), r.nextInt(), text});
        }
        Schema probeSchema = Schema.of(Column.of("lk", ColumnType.BIGINT), Column.of("la", ColumnType.BIGINT),
                Column.of("lb", ColumnType.INTEGER), Column.of("ls", ColumnType.VARCHAR));
        Schema buildSchema = Schema.of(Column.of("rk", ColumnType.BIGINT), Column.of("ra", ColumnType.BIGINT));
        List<ColumnRef> projection = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            projection.add(new ColumnRef(Side.LEFT, c));
        }
        projection.add(new ColumnRef(Side.RIGHT, 0));
        projection.add(new ColumnRef(Side.RIGHT, 1));
        JoinConfig config = JoinConfig.builder().buildSide(Side.RIGHT).spillDirectory(spillRoot).threads(4)
                .rowsPerWorker(0).build();
        for (JoinType type : new JoinType[] {JoinType.FULL_OUTER, JoinType.INNER, JoinType.LEFT_OUTER}) {
            String what = "seed=" + seed + " " + type;
            List<Object[]> inMemory = join(probeSchema, probeRows, 1024, buildSchema, buildRows, 1024, type,
                    projection, config, 8L << 20, JoinRunner.Mode.SINK, what + " in memory").rows();
            for (JoinRunner.Mode mode : JoinRunner.Mode.values()) {
                JoinRunner.Result result = join(probeSchema, probeRows, 1024, buildSchema, buildRows, 1024, type,
                        projection, config, 64L << 10, mode, what + " " + mode);
                String context = what + " " + mode + " " + result.stats().toJson();
                assertThat(result.stats().spilledBytesBuild()).as(context).isPositive();
                assertThat(Rows.multiset(result.rows())).as(context).isEqualTo(Rows.multiset(inMemory));
            }
        }
    }

    @Test
    void everyJoinTypeWithReadmittedPartitionsEqualsTheJoinInMemory() throws IOException {
        long seed = Seeds.logged("ReadmissionTest");
        SplittableRandom r = new SplittableRandom(seed);
        long base = r.nextInt(2_000_001) - 1_000_000;
        List<Object[]> buildRows = buildSide(r, base, BUILD_ROWS);
        List<Object[]> probeRows = probeSide(r, base, 3 * BUILD_ROWS, BUILD_ROWS);
        int readmitted = 0;
        int joins = 0;
        for (JoinType type : JoinType.values()) {
            for (Side build : Side.values()) {
                int threads = new int[] {1, 2, 4}[r.nextInt(3)];
                JoinRunner.Mode mode = JoinRunner.Mode.values()[r.nextInt(JoinRunner.Mode.values().length)];
                List<Object[]> left = build == Side.LEFT ? buildRows : probeRows;
                List<Object[]> right = build == Side.RIGHT ? buildRows : probeRows;
                String what = "seed=" + seed + " " + type + " build=" + build + " threads=" + threads + " " + mode;
                JoinRunner.Result inMemory = run(left, right, type, build, 1, 8L << 20, JoinRunner.Mode.SINK, r,
                        what + " in memory");
                // the peak in memory held the rows and the table beside them: without the rows, and with room for
                // the passes that read spilled rows back, the table fits and the rows do not
                long budget = inMemory.stats().peakReservedBytes() - inMemory.stats().rowBytes() + PASS_ROOM;
                JoinRunner.Result result = run(left, right, type, build, threads, budget, mode, r, what);
                JoinStats stats = result.stats();
                String context = what + " " + stats.toJson();
                assertThat(Rows.multiset(result.rows())).as(context).isEqualTo(Rows.multiset(inMemory.rows()));
                assertThat(stats.spilledBytesBuild()).as(context).isPositive();
                joins++;
                if (stats.readmittedPartitions() > 0) {
                    readmitted++;
                    assertThat(stats.directTables()).as(context).isPositive();
                    assertThat(stats.readmittedBuildRows()).as(context).isPositive();
                    assertThat(stats.toJson()).contains("\"readmitted_partitions\":" + stats.readmittedPartitions());
                }
                if (stats.residentPartitions() == stats.fanout()) {
                    assertThat(stats.spilledBytesProbe()).as(context).isZero();
                    assertThat(stats.partitions()).as("pairs: " + context).isZero();
                }
            }
        }
        // not every one: a join whose budget is taken by many workers' partly filled pages may find no room to
        // read a spilled file back, or no room for more rows in the table than it holds already
        assertThat(readmitted).as("joins that readmitted partitions, seed=%d", seed).isGreaterThan(joins / 2);
    }
}
