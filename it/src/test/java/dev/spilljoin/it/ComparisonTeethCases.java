package dev.spilljoin.it;

import dev.spilljoin.operator.FaultInjection;
import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.operator.JoinType;
import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.testing.Rows;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Proof that the oracle comparison has teeth: a wrong operator result must make it fail. (1) The operator loses one
 * unmatched build row (simulated by withholding it from the operator's input while the oracle has it): the FULL
 * join's comparison must report one row missing. (2) Through the spilling join's test-only fault point ({@link FaultInjection}), the operator
 * drops the unmatched build rows of one spilled partition: the comparison must fail.
 */
interface ComparisonTeethCases extends OracleTest {

    @Test
    default void aLostUnmatchedBuildRowFailsTheComparison() throws SQLException {
        // Small enough that the result (at most 1,500 + 1,000 rows plus duplicate matches) is compared row by row.
        JoinCase c = InputGenerator.generate(KeyDistribution.UNIFORM, KeyShape.BIGINT, 1_500, 1_000, 0.0, SEED);
        JoinConfig config = JoinConfig.builder().buildSide(Side.RIGHT).build();
        try (OracleTables tables = new OracleTables(oracle())) {
            String l = tables.load("l", c.leftSchema(), c.left());
            String r = tables.load("r", c.rightSchema(), c.right());
            long lost = oracle().aggregates("SELECT min(r.r_id) FROM " + r + " r WHERE NOT EXISTS (SELECT 1 FROM " + l
                    + " l WHERE " + JoinSql.keyCondition(c) + ")").get(0).longValueExact();
            JoinCase wrong = new JoinCase(c.description() + " without right row " + lost, c.leftSchema(),
                    c.rightSchema(), c.leftKeys(), c.rightKeys(), c.left(), withoutRow(c.rightSchema(), c.right(), lost));
            OracleCheck.Comparison cmp = OracleCheck.compare(tables, l, r, wrong, JoinType.FULL_OUTER,
                    c.fullProjection(JoinType.FULL_OUTER), InMemoryJoinCases.BUDGET, config);
            assertThat(cmp.expected().isExact()).as("rows compared one by one: %s", cmp.expected()).isTrue();
            assertThat(cmp.differences())
                    .contains("row counts differ: expected " + cmp.expected().rowCount() + ", actual "
                            + (cmp.expected().rowCount() - 1))
                    .contains("row checksums differ")
                    .contains("1 missing from the actual result, 0 extra in it")
                    .contains("missing [NULL, NULL, NULL, NULL, NULL, NULL, NULL, " + lost + ", ");
        }
    }

    @Test
    default void droppingTheUnmatchedBuildRowsOfOneSpilledPartitionFailsTheComparison() throws SQLException {
        JoinCase c = InputGenerator.generate(KeyDistribution.UNIFORM, KeyShape.BIGINT, SpillingJoinCases.ROWS,
                SpillingJoinCases.ROWS, 0.0, SEED);
        JoinConfig spilling = JoinConfig.builder().buildSide(Side.RIGHT).fanoutLog2(4).forceSpill(true).build();
        try (OracleTables tables = new OracleTables(oracle())) {
            String l = tables.load("l", c.leftSchema(), c.left());
            String r = tables.load("r", c.rightSchema(), c.right());
            OracleCheck.Comparison healthy = OracleCheck.compare(tables, l, r, c, JoinType.FULL_OUTER,
                    c.fullProjection(JoinType.FULL_OUTER), SpillingJoinCases.SPILL_BUDGET, spilling);
            assertThat(healthy.differences()).as("the same spilling join without the fault").isEmpty();
            OracleCheck.Comparison cmp = OracleCheck.compare(tables, l, r, c, JoinType.FULL_OUTER,
                    c.fullProjection(JoinType.FULL_OUTER), SpillingJoinCases.SPILL_BUDGET, spilling,
                    FaultInjection.droppingUnmatchedBuildRowsOfPartition(3));
            assertThat(cmp.actual().stats().partitionsPerLevel().get(0)).as("spilled level-0 partitions").isEqualTo(16L);
            assertThat(cmp.actual().digest().rowCount()).as("rows with the fault").isLessThan(cmp.expected().rowCount());
            assertThat(cmp.differences()).contains("row counts differ").contains("row checksums differ");
        }
    }

    private static List<Batch> withoutRow(dev.spilljoin.operator.data.Schema schema, List<Batch> batches, long id) {
        List<Object[]> rows = new ArrayList<>();
        for (Batch b : batches) {
            for (Object[] row : Rows.fromBatch(b)) {
                if ((Long) row[0] != id) {
                    rows.add(row);
                }
            }
        }
        return Rows.toBatches(schema, rows, 1000);
    }
}
