package dev.spilljoin.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BenchRunnerTest {

    @Test
    void runsDuckDbAtATinyScaleAndWritesTheTableAndJson(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Path json = dir.resolve("out.json");
        int exit = BenchRunner.commandLine(new PrintStream(out, true, StandardCharsets.UTF_8)).execute(
                "--scale", "2000x20000", "--engines", "spilljoin,duckdb", "--workloads", "W1,W3L", "--settings", "generous,tight",
                "--runs", "2", "--warmups", "2", "--tight-budget", "33554432", "--generous-budget", "67108864", "--json",
                json.toString());
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(printed).isZero();
        assertThat(printed).contains("2 timed runs after 2 warm-ups").contains("W1   generous").contains("W3L  tight").contains(" ok ").doesNotContain("WRONG");
        String written = Files.readString(json);
        assertThat(written).contains("\"engine\": \"duckdb\"").contains("\"workload\": \"W3L\"").doesNotContain("\"agrees\": false");
        assertThat(written).contains("\"engine\": \"spilljoin\"").contains("\"warmups\": 2,");
        assertThat(written.split("\"agrees\": true", -1)).hasSize(9);
        // spilljoin's 4 cells report each of their 2 timed runs (its JoinStats, phase times and all); DuckDB's none.
        assertThat(written.split("\"runReports\": \\[\\{\"join_type\":\"", -1)).hasSize(5);
        assertThat(written.split("\"build_ms\":", -1)).hasSize(9);
        assertThat(written.split("\"runReports\": \\[\\]", -1)).hasSize(5);
        // Every cell says how long this JVM's JIT compiled during each of its 2 timed runs, and the log sums them.
        assertThat(written.split("\"runCompileMillis\": \\[\\d+, \\d+\\]", -1)).hasSize(9);
        assertThat(printed.split("the JIT compiling for \\d+ ms during the timed runs", -1)).hasSize(9);
    }

    @Test
    void anEngineFailureMakesTheRunExitNonZero() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        CommandLine commandLine = BenchRunner.commandLine(new PrintStream(out, true, StandardCharsets.UTF_8));
        commandLine.setErr(new PrintWriter(err));
        // DuckDB cannot join in 1000 bytes.
        int exit = commandLine.execute(
                "--scale", "1000x2000", "--engines", "duckdb", "--workloads", "W1", "--settings", "tight", "--runs", "1",
                "--tight-budget", "1000");
        assertThat(exit).isEqualTo(1);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("ERROR").contains("Out of Memory");
        assertThat(err.toString()).contains("RESULTS DISAGREE: 1 engine run(s) failed or differ from the reference");
    }

    @Test
    void badArgumentsExitWithTwoAndSayWhy() {
        for (String[] args : new String[][] {
            {"--engines", "oracle"}, {"--workloads", "W9"}, {"--scale", "huge"}, {"--settings", "roomy"}, {"--runs", "0"},
            {"--warmups", "0"}}) {
            StringWriter err = new StringWriter();
            CommandLine commandLine = BenchRunner.commandLine(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            commandLine.setErr(new PrintWriter(err));
            assertThat(commandLine.execute(args)).as(String.join(" ", args)).isEqualTo(2);
            assertThat(err.toString()).as(String.join(" ", args)).containsAnyOf("unknown engine 'oracle'", "unknown workload 'W9'",
                    "unknown scale 'huge'", "unknown setting 'roomy'", "--runs must be at least 1",
                    "--warmups must be at least 1");
        }
    }
}
