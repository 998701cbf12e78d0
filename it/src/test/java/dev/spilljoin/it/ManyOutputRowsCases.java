package dev.spilljoin.it;

import dev.spilljoin.operator.ColumnRef;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinSpec;
import dev.spilljoin.operator.JoinStats;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSink;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 50,000,000 output rows, compared with an oracle that never ships them: R and S have 1M rows each of
 * {@code (k, p)} from {@link ArithmeticSource}'s formulas, 20,000 keys of 50 rows on each side, so the inner join has
 * 20,000 × 50 × 50 = 50M rows. spilljoin's side streams the inputs and folds its result batch by batch; the oracle
 * builds the same tables by SQL and returns {@code count(*)}, {@code sum(r.p + s.p)} and {@code sum(r.p * s.p)} (which
 * depends on which rows are paired, not only on how often each appears), and the rows of a deterministic ~1/4099
 * sample ({@code (r.p * 3 + s.p) % 4099 = 0}), compared exactly as a multiset.
 */
interface ManyOutputRowsCases extends OracleTest {
    long ROWS = 1_000_000;
    long KEYS = 20_000;
    long SAMPLE_MODULUS = 4099;

    /** The case: the build side (about 48 MB of serialized rows) far over a 16 MB budget, so the join spills. */
    @Test
    default void fiftyMillionRowsUnderSixteenMegabytes() throws SQLException {
        long budget = 16L << 20;
        ArithmeticSource r = new ArithmeticSource("r_", ROWS, KEYS, 7919, 13, 1_000_003);
        ArithmeticSource s = new ArithmeticSource("s_", ROWS, KEYS, 104_729, 7, 1_000_003);
        long[] count = new long[1];
        long[] sum = new long[1];
        BigInteger[] productSum = {BigInteger.ZERO};
        ResultDigest[] sample = new ResultDigest[1];
        BatchRowView view = new BatchRowView();
        JoinStats stats = SpilljoinRun.run(memory -> JoinSpec.builder(ArithmeticSource.schema("r_"),
                                ArithmeticSource.schema("s_"))
                        .on("r_k", "s_k").joinType(JoinType.INNER).reservation(memory)
                        .projection(List.of(new ColumnRef(Side.LEFT, 0), new ColumnRef(Side.LEFT, 1), new ColumnRef(Side.RIGHT, 1)))
                        .config(JoinConfig.builder().buildSide(Side.LEFT).build()).build(),
                budget, r, s, spec -> {
                    sample[0] = new ResultDigest(spec.outputSchema());
                    return (BatchSink) batch -> fold(batch, count, sum, productSum, sample[0], view);
                });
        try (OracleTables tables = new OracleTables(oracle())) {
            SqlOracle o = oracle();
            String rt = tables.createAs("r", "SELECT " + r.sqlColumns("i") + " FROM " + o.integerSeries(ROWS));
            String st = tables.createAs("s", "SELECT " + s.sqlColumns("i") + " FROM " + o.integerSeries(ROWS));
            String join = " FROM " + rt + " r JOIN " + st + " s ON r.k = s.k";
            List<BigInteger> expected = o.aggregates("SELECT count(*), CAST(sum(r.p + s.p) AS DECIMAL(38, 0)), "
                    + "CAST(sum(r.p * s.p) AS DECIMAL(38, 0))" + join);
            assertThat(expected.get(0)).as("%s count", o.name()).isEqualTo(BigInteger.valueOf(ROWS / KEYS * ROWS));
            assertThat(count[0]).as("spilljoin count vs %s", o.name()).isEqualTo(expected.get(0).longValueExact());
            assertThat(BigInteger.valueOf(sum[0])).as("spilljoin sum(r.p + s.p) vs %s", o.name()).isEqualTo(expected.get(1));
            assertThat(productSum[0]).as("spilljoin sum(r.p * s.p) vs %s", o.name()).isEqualTo(expected.get(2));
            ResultDigest oracleSample = o.digest("SELECT r.k, r.p, s.p" + join + " WHERE (r.p * 3 + s.p) % "
                    + SAMPLE_MODULUS + " = 0", sample[0].schema());
            assertThat(oracleSample.rowCount()).as("sampled rows").isGreaterThan(1000);
            assertThat(oracleSample.differences(sample[0])).as("sampled rows vs %s", o.name()).isEmpty();
        }
        assertThat(stats.outputRows()).isEqualTo(count[0]);
        System.out.println(getClass().getSimpleName() + " 50M rows under " + budget + " bytes: " + stats.toJson());
        assertThat(stats.partitions()).as("spilled partitions: %s", stats).isPositive();
        assertThat(stats.spilledBytesBuild()).as("spilled build bytes: %s", stats).isPositive();
    }

    private static void fold(Batch batch, long[] count, long[] sum, BigInteger[] productSum, ResultDigest sample,
                             BatchRowView view) {
        int n = batch.rowCount();
        long[] rp = batch.column(1).longs();
        long[] sp = batch.column(2).longs();
        long s = 0;
        long products = 0; // < 4096 * 10^12: no overflow within a batch
        for (int i = 0; i < n; i++) {
            s += rp[i] + sp[i];
            products += rp[i] * sp[i];
            if ((rp[i] * 3 + sp[i]) % SAMPLE_MODULUS == 0) {
                view.moveTo(batch, i);
                sample.add(view);
            }
        }
        count[0] += n;
        sum[0] += s;
        productSum[0] = productSum[0].add(BigInteger.valueOf(products));
    }
}
