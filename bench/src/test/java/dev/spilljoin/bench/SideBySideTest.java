package dev.spilljoin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SideBySideTest {

    /**
     * A contender's warm-ups run before its timed runs, untimed: the first profiled, the rest plain runs; only the
     * timed runs make the measurement's seconds.
     */
    @Test
    void everyContenderGetsItsWarmUpsBeforeItsTimedRuns() throws Exception {
        try (CountingEngine engine = new CountingEngine(new SpillJoinEngine(1))) {
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            List<Measurement> measurements = new SideBySide(Scale.named("2000x20000"),
                    new PrintStream(log, true, StandardCharsets.UTF_8)).run(List.of(Workload.W1),
                    List.of(new SideBySide.Contender(engine, 3, 2)), Map.of(MemorySetting.GENEROUS, 64L << 20));
            assertThat(measurements).hasSize(1);
            assertThat(measurements.get(0).agrees()).as(log.toString(StandardCharsets.UTF_8)).isTrue();
            assertThat(measurements.get(0).runSeconds()).as("timed runs").hasSize(2);
            assertThat(engine.profiles).as("profiled warm-ups").isEqualTo(1);
            assertThat(engine.runs).as("runs: two more warm-ups, then two timed").isEqualTo(4);
        }
    }

    /** An engine that counts the calls it passes on. */
    private static final class CountingEngine implements Engine {
        private final Engine engine;
        private int profiles;
        private int runs;

        CountingEngine(Engine engine) {
            this.engine = engine;
        }

        @Override
        public String name() {
            return engine.name();
        }

        @Override
        public void load(TableSource rows) throws Exception {
            engine.load(rows);
        }

        @Override
        public EngineProfile profile(Workload workload, long budgetBytes) throws Exception {
            profiles++;
            return engine.profile(workload, budgetBytes);
        }

        @Override
        public TimedRun run(Workload workload, long budgetBytes) throws Exception {
            runs++;
            return engine.run(workload, budgetBytes);
        }

        @Override
        public void close() throws IOException, SQLException {
            engine.close();
        }
    }
}
