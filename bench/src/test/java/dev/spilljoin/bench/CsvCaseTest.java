package dev.spilljoin.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CsvCaseTest {

    @Test
    void writeDecimalFormatsLikeLongToString() {
        byte[] buffer = new byte[24];
        for (long value : new long[] {0, 7, 10, 999, 1L << 31, Long.MAX_VALUE, -1, -4711, Long.MIN_VALUE}) {
            int end = CsvWorkloadWriter.writeDecimal(value, buffer, 2);
            assertThat(new String(buffer, 2, end - 2, StandardCharsets.US_ASCII)).isEqualTo(Long.toString(value));
        }
    }

    @Test
    void writtenCsvHoldsTheGeneratedRows(@TempDir Path dir) throws IOException {
        WorkloadGenerator generator = new WorkloadGenerator(Workload.W2, new Scale("tiny", 100, 20_000));
        Path file = dir.resolve("s.csv");
        CsvWorkloadWriter.write(generator.probeTable(), file);
        List<String> lines = Files.readAllLines(file);
        TableSource.Columns expected = generator.probeTable().materialize();
        assertThat(lines).hasSize(20_001);
        assertThat(lines.get(0)).isEqualTo("k,p");
        for (int i = 0; i < 20_000; i++) {
            assertThat(lines.get(i + 1)).isEqualTo(expected.keys()[i] + "," + expected.payloads()[i]);
        }
    }

    @Test
    void checkerSumsJoinedRowsAndRejectsMismatchedKeys(@TempDir Path dir) throws IOException {
        Path good = dir.resolve("good.csv");
        Files.writeString(good, "k,p,k_1,p_1\n3,10,3,5\n4,1,4,2\n");
        assertThat(CsvJoinOutputChecker.check(good)).isEqualTo(new JoinResult(2, 18));
        Path bad = dir.resolve("bad.csv");
        Files.writeString(bad, "k,p,k_1,p_1\n3,10,4,5\n");
        assertThatThrownBy(() -> CsvJoinOutputChecker.check(bad)).isInstanceOf(IOException.class)
                .hasMessageContaining("line 2: joined keys differ: 3 and 4");
    }

    /**
     * Both engines as fresh processes on the same files, CSV and Parquet: DuckDB, and the real {@code bin/spilljoin}
     * launcher at the limit and at a lower one (the launcher needs the cli module's jar, which {@code mvn verify}
     * packages before this module's tests; built alone, the test is skipped and says why). Every output agrees with
     * the reference, every run's peak resident set was read and spilljoin's is within the README's bound, and the
     * work directory is gone afterwards.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void bothEnginesJoinTheFilesInFreshProcessesAndEverythingIsDeleted(boolean parquet) throws Exception {
        Path launcher = builtLauncher();
        inBenchTmpdir(base -> {
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            Scale tiny = new Scale("tiny", 1_000, 10_000);
            List<CsvCase.Outcome> outcomes = new CsvCase(tiny, new PrintStream(log, true, StandardCharsets.UTF_8),
                    parquet).run(2, CsvCase.DEFAULT_MEMORY_LIMIT, launcher, 1 << 20);
            assertThat(outcomes).extracting(CsvCase.Outcome::format).containsOnly(parquet ? "parquet" : "csv");
            JoinResult expected = ReferenceJoin.compute(new WorkloadGenerator(Workload.W1, tiny));
            assertThat(outcomes).extracting(CsvCase.Outcome::engine).containsExactly("duckdb", "spilljoin", "spilljoin");
            assertThat(outcomes).extracting(CsvCase.Outcome::memoryLimitBytes)
                    .containsExactly(CsvCase.DEFAULT_MEMORY_LIMIT, CsvCase.DEFAULT_MEMORY_LIMIT, 1L << 20);
            for (CsvCase.Outcome outcome : outcomes) {
                assertThat(outcome.result()).as(outcome.engine()).isEqualTo(expected);
                assertThat(outcome.agrees()).isTrue();
                assertThat(outcome.runSeconds()).as("two interleaved runs").hasSize(2).allMatch(s -> s > 0);
                assertThat(outcome.seconds()).as("the median of two: the slower").isEqualTo(
                        Math.max(outcome.runSeconds().get(0), outcome.runSeconds().get(1)));
                assertThat(outcome.peakRssBytes()).as(outcome.engine() + ": VmHWM read while it ran").isPositive();
            }
            for (CsvCase.Outcome spilljoin : outcomes.subList(1, outcomes.size())) {
                assertThat(spilljoin.withinRssBound()).as("spilljoin at %s: peak RSS %s within the limit + 256 MB",
                        ResultTable.bytes(spilljoin.memoryLimitBytes()), ResultTable.rss(spilljoin.peakRssBytes()))
                        .isTrue();
            }
        });
    }

    /**
     * The real {@code bin/spilljoin} launcher; it needs the cli module's jar, which {@code mvn verify} packages
     * before this module's tests; built alone, the calling test is skipped and says why.
     */
    static Path builtLauncher() throws IOException {
        Path launcher = Path.of("..", "bin", "spilljoin").toAbsolutePath().normalize();
        boolean cliBuilt;
        try (var jars = Files.list(launcher.getParent().resolveSibling("cli").resolve("target"))) {
            cliBuilt = jars.anyMatch(j -> j.getFileName().toString().matches("spilljoin-cli-.*\\.jar"));
        } catch (IOException noTarget) {
            cliBuilt = false;
        }
        Assumptions.assumeTrue(cliBuilt, "the cli jar is not built (mvn -B -q package -pl cli -am -DskipTests)");
        return launcher;
    }

    /** A step of a test that works in the bench's temporary root. */
    interface InTmpdir {
        void run(Path base) throws Exception;
    }

    /**
     * Runs {@code step} with {@code bench.tmpdir} set to a fresh directory, then checks that the step left nothing
     * there and deletes it.
     */
    static void inBenchTmpdir(InTmpdir step) throws Exception {
        Path base = Files.createTempDirectory("csv-case-test");
        String previous = System.getProperty("bench.tmpdir");
        System.setProperty("bench.tmpdir", base.toString());
        try {
            step.run(base);
            try (var left = Files.list(base)) {
                assertThat(left).isEmpty();
            }
        } finally {
            if (previous == null) {
                System.clearProperty("bench.tmpdir");
            } else {
                System.setProperty("bench.tmpdir", previous);
            }
            Files.deleteIfExists(base);
        }
    }
}
