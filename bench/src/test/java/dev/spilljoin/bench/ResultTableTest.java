package dev.spilljoin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ResultTableTest {

    private static final Scale SCALE = new Scale("t", 10, 1_000_000);
    private static final JoinResult RIGHT = new JoinResult(5, 50);

    private static Measurement measured(String engine, MemorySetting setting, JoinResult result, double... seconds) {
        return new Measurement(Workload.W1, setting, 320, engine, seconds, OptionalLong.of(3L << 20), OptionalLong.empty(),
                result, RIGHT, "", null);
    }

    @Test
    void medianOfOddAndEvenRunCounts() {
        assertThat(measured("duckdb", MemorySetting.TIGHT, RIGHT, 3, 1, 2).medianSeconds()).isEqualTo(2);
        assertThat(measured("duckdb", MemorySetting.TIGHT, RIGHT, 4, 1, 2, 3).medianSeconds()).isEqualTo(2.5);
        assertThat(measured("duckdb", MemorySetting.TIGHT, RIGHT, 2).probeRowsPerSecond(SCALE)).isEqualTo(500_000);
    }

    @Test
    void ratiosAppearOnlyWithASpilljoinRowOfTheSameWorkloadAndSetting() {
        Measurement duckTight = measured("duckdb", MemorySetting.TIGHT, RIGHT, 4);
        Measurement duckGenerous = measured("duckdb", MemorySetting.GENEROUS, RIGHT, 4);
        Measurement oursTight = measured(ResultTable.SPILLJOIN, MemorySetting.TIGHT, RIGHT, 1);
        List<Measurement> all = List.of(duckTight, duckGenerous, oursTight);

        assertThat(ResultTable.ratio(duckTight, all)).contains(0.25);
        assertThat(ResultTable.ratio(duckGenerous, all)).isEmpty();
        assertThat(ResultTable.ratio(oursTight, all)).isEmpty();
        assertThat(ResultTable.format(SCALE, all)).contains("spilljoin/engine").contains("  0.25");
        assertThat(ResultTable.format(SCALE, List.of(duckTight))).doesNotContain("spilljoin/engine");
    }

    @Test
    void wrongResultsAndErrorsAreMarked() {
        Measurement wrong = measured("postgres", MemorySetting.TIGHT, new JoinResult(5, 51), 1);
        Measurement failed = Measurement.failed(Workload.W1, MemorySetting.TIGHT, 320, "duckdb", RIGHT, "out of memory");
        assertThat(wrong.agrees()).isFalse();
        assertThat(failed.agrees()).isFalse();
        String table = ResultTable.format(SCALE, List.of(wrong, failed));
        assertThat(table).contains("WRONG").contains("got count 5, sum 51, expected count 5, sum 50")
                .contains("ERROR").contains("out of memory");
        assertThat(JsonReport.format(SCALE, 1, 1, List.of(wrong, failed), List.of("postgres: \"down\""), List.of()))
                .contains("\"agrees\": false").contains("\"error\": \"out of memory\"")
                .contains("\"skipped\": [\"postgres: \\\"down\\\"\"]");
    }

    @Test
    void bytesUseBinaryUnits() {
        assertThat(ResultTable.bytes(512)).isEqualTo("512B");
        assertThat(ResultTable.bytes(32L << 20)).isEqualTo("32.0MB");
        assertThat(ResultTable.bytes(3L << 29)).isEqualTo("1.50GB");
    }
}
