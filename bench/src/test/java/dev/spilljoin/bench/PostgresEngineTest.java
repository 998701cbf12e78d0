package dev.spilljoin.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Runs against the server of {@link PostgresConnectionSettings}; skipped with the reason when it is unreachable, failed under CI=true. */
class PostgresEngineTest {

    private static final Scale TINY = new Scale("tiny", 1_000, 10_000);
    private static final PostgresConnectionSettings SETTINGS = PostgresConnectionSettings.fromEnvironment();

    @BeforeAll
    static void requireServer() {
        Optional<String> reason = SETTINGS.unreachableReason();
        if (reason.isPresent()) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail(reason.get());
            }
            Assumptions.abort(reason.get());
        }
    }

    @Test
    void everyWorkloadGivesTheReferenceResultWithAHashJoinAndTheSchemaIsDroppedAfterClose() throws Exception {
        String schema;
        try (PostgresEngine engine = new PostgresEngine(SETTINGS, true)) {
            schema = engine.schema();
            for (Workload workload : Workload.values()) {
                WorkloadGenerator generator = new WorkloadGenerator(workload, TINY);
                engine.load(generator.buildTable());
                engine.load(generator.probeTable());
                JoinResult expected = ReferenceJoin.compute(generator);

                assertThat(engine.run(workload, 32L * TINY.nR()).result()).as("%s tight", workload).isEqualTo(expected);
                assertThat(engine.run(workload, 64L << 20).result()).as("%s generous", workload).isEqualTo(expected);

                EngineProfile profile = engine.profile(workload, 64L * 1024);
                assertThat(profile.note()).startsWith("Hash Join, batches");
                assertThat(profile.peakMemoryBytes()).isPresent();
            }
            assertThat(schemaExists(schema)).isTrue();
        }
        assertThat(schemaExists(schema)).isFalse();
    }

    @Test
    void aBudgetBelowTheBuildSideMakesPostgresSpill() throws Exception {
        try (PostgresEngine engine = new PostgresEngine(SETTINGS, true)) {
            WorkloadGenerator generator = new WorkloadGenerator(Workload.W1, new Scale("spill", 50_000, 100_000));
            engine.load(generator.buildTable());
            engine.load(generator.probeTable());
            EngineProfile profile = engine.profile(Workload.W1, 64L * 1024);
            assertThat(profile.spilledBytes().orElseThrow()).as(profile.note()).isPositive();
            assertThat(profile.note()).doesNotContain("-> 1,");
        }
    }

    private static boolean schemaExists(String schema) throws Exception {
        try (Connection connection = SETTINGS.connect(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(
                     "SELECT count(*) FROM information_schema.schemata WHERE schema_name = '" + schema + "'")) {
            rows.next();
            return rows.getLong(1) == 1;
        }
    }
}
