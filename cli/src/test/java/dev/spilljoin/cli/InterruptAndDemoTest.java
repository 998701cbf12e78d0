package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spilljoin.operator.data.ColumnType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintStream;
import java.nio.channels.ClosedByInterruptException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InterruptAndDemoTest {
    @TempDir
    Path dir;

    @Test
    void interruptionAnywhereInTheCauseChainExitsWith130() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream stream = new PrintStream(err, true, StandardCharsets.UTF_8);
        int code = Main.report(new InputException("cannot read x", new ClosedByInterruptException()), stream);
        assertThat(code).isEqualTo(ExitCodes.INTERRUPTED);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("spilljoin: interrupted");
        assertThat(Main.report(new ResourceException("disk full"), stream)).isEqualTo(ExitCodes.RESOURCES);
        assertThat(Main.report(new IllegalStateException("bug"), stream)).isEqualTo(ExitCodes.INTERNAL);
    }

    @Test
    void readerAndWriterStopWhenTheThreadIsInterrupted() throws IOException {
        Path file = CsvTestFiles.write(dir, "a.csv", "a\n1\n");
        try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.FAIL)) {
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(() -> reader.read(reader.newChunk(4)))
                        .isInstanceOf(InputException.class).hasCauseInstanceOf(InterruptedIOException.class);
            } finally {
                Thread.interrupted();
            }
        }
        CsvWriter writer = new CsvWriter(new ByteArrayOutputStream(), (byte) ',');
        writer.writeLong(1);
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(writer::flush).isInstanceOf(InterruptedIOException.class);
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void demoDataIsWorkloadW1EveryOrderMatchesExactlyOneCustomer() throws IOException {
        int rows = 5_000;
        DemoData.Inputs inputs = DemoData.write(dir, rows);
        ColumnType[] bigints = {ColumnType.BIGINT, ColumnType.BIGINT, null};
        Set<Long> customerIds = new HashSet<>();
        try (CsvReader customers = new CsvReader(inputs.right(), CsvFormat.DEFAULT, OnError.FAIL, bigints, 4096)) {
            assertThat(customers.columnNames()).containsExactly("id", "score", "name");
            CsvChunk chunk = customers.newChunk(1000);
            while (customers.read(chunk)) {
                for (int r = 0; r < chunk.rows(); r++) {
                    customerIds.add(chunk.longs(0)[r]);
                }
            }
        }
        assertThat(customerIds).hasSize(rows).allMatch(id -> id >= 0 && id < rows);
        long orders = 0;
        long unmatched = 0;
        try (CsvReader reader = new CsvReader(inputs.left(), CsvFormat.DEFAULT, OnError.FAIL, bigints, 4096)) {
            assertThat(reader.columnNames()).containsExactly("order_id", "customer_id", "amount");
            CsvChunk chunk = reader.newChunk(1000);
            while (reader.read(chunk)) {
                for (int r = 0; r < chunk.rows(); r++) {
                    if (!customerIds.contains(chunk.longs(1)[r])) {
                        unmatched++;
                    }
                    orders++;
                }
            }
        }
        assertThat(orders).isEqualTo(rows);
        assertThat(unmatched).isZero();
    }

    @Test
    void demoRejectsZeroRows() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"demo", "--rows", "0"}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--rows 0 must be at least 1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"csv", "parquet"})
    void demoSpillsPrintsTheStatsAndDeletesItsDirectory(String format) throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Set<Path> before = demoDirectories(tmp);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String rows = format.equals("csv") ? "50000" : "200000"; // Parquet files are smaller: more rows to pass 1MB
        int code = Main.run(new String[] {"demo", "--rows", rows, "--work-mem", "1MB", "--format", format},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String message = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as(message).isZero();
        assertThat(message).contains("demo: wrote orders." + format).doesNotContain("not larger than the budget");
        String stats = out.toString(StandardCharsets.UTF_8);
        assertThat(JoinEndToEndTest.field(stats, "rows_out")).isEqualTo(rows);
        assertThat(JoinEndToEndTest.field(stats, "budget_bytes")).isEqualTo("1048576");
        assertThat(Long.parseLong(JoinEndToEndTest.field(stats, "peak_reserved_bytes"))).isLessThanOrEqualTo(1 << 20);
        assertThat(Long.parseLong(JoinEndToEndTest.field(stats, "partitions"))).as("it spilled").isPositive();
        assertThat(Long.parseLong(JoinEndToEndTest.field(stats, "spilled_bytes_build"))).isPositive();
        assertThat(Long.parseLong(JoinEndToEndTest.field(stats, "spilled_bytes_probe"))).isPositive();
        assertThat(demoDirectories(tmp)).isEqualTo(before);
    }

    /**
     * {@code --format csv,parquet} runs the demo in each format in turn (what the launcher's class archive is trained
     * on): the stats of a spilling CSV join, then of a spilling Parquet one, and no directory left; an unknown format
     * in the list is a usage error before any file is written.
     */
    @Test
    void demoRunsEachFormatOfAListInTurn() throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Set<Path> before = demoDirectories(tmp);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"demo", "--rows", "200000", "--work-mem", "1MB", "--format", "csv,parquet"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String message = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as(message).isZero();
        assertThat(message.indexOf("demo: wrote orders.csv")).as(message).isNotNegative()
                .isLessThan(message.indexOf("demo: wrote orders.parquet"));
        List<String> stats = Stream.of(out.toString(StandardCharsets.UTF_8).split("(?m)^}$"))
                .filter(part -> part.contains("\"rows_out\"")).toList();
        assertThat(stats).as("one stats object per format").hasSize(2);
        for (String one : stats) {
            assertThat(JoinEndToEndTest.field(one, "rows_out")).isEqualTo("200000");
            assertThat(Long.parseLong(JoinEndToEndTest.field(one, "partitions"))).as("it spilled").isPositive();
        }
        assertThat(demoDirectories(tmp)).isEqualTo(before);

        ByteArrayOutputStream usage = new ByteArrayOutputStream();
        int refused = Main.run(new String[] {"demo", "--rows", "100", "--format", "csv,orc"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(usage, true, StandardCharsets.UTF_8));
        assertThat(refused).isEqualTo(ExitCodes.USAGE);
        assertThat(usage.toString(StandardCharsets.UTF_8)).contains("orc");
        assertThat(demoDirectories(tmp)).isEqualTo(before);
    }

    @Test
    void demoNotesWhenItsFilesFitTheBudget() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"demo", "--rows", "100", "--work-mem", "1MB", "--quiet"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("a file is not larger than the budget");
    }

    private static Set<Path> demoDirectories(Path tmp) throws IOException {
        try (Stream<Path> files = Files.list(tmp)) {
            return files.filter(p -> p.getFileName().toString().startsWith("spilljoin-demo-"))
                    .collect(Collectors.toSet());
        }
    }
}
