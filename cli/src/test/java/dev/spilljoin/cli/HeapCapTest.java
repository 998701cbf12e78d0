package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Wide and large rows under the launcher's heap cap: {@code spilljoin join} in a forked JVM with {@code -Xmx256m}
 * and the serial collector, as {@code bin/spilljoin} runs it (the test JVM's own heap is larger). Many columns
 * join (the batches are sized by bytes); a row too large for the heap or for {@code --work-mem} is refused with
 * one line, exit 3 or 2, and no file left behind; never an {@link OutOfMemoryError} or a stack trace.
 */
class HeapCapTest {
    private static final String HEAP = "-Xmx256m";

    @TempDir
    Path dir;
    /** The forked JVM's own temporary directory, in which it must make nothing (nor may Chronicle: see ChronicleOs). */
    @TempDir
    Path jvm;
    private Path spill;
    private Path temporary;

    @BeforeEach
    void spillDirectory() throws IOException {
        spill = Files.createDirectory(dir.resolve("spill"));
        temporary = Files.createDirectory(jvm.resolve("tmp"));
    }

    /** The exit code and everything the command printed (stdout and stderr). */
    private record Run(int code, String text) {
    }

    private Run spilljoin(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add(HEAP);
        command.add("-XX:+UseSerialGC");
        command.add("-Djava.io.tmpdir=" + temporary);
        for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (flag.startsWith("--add-") || flag.startsWith("-Dchronicle") || flag.startsWith("-Ddisable")
                    || flag.startsWith("-Dbackground")) {
                command.add(flag);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(Arrays.asList(args));
        command.addAll(List.of("--spill-dir", spill.toString(), "--quiet"));
        Path printed = jvm.resolve("printed.txt");
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(printed.toFile()).start();
        process.getOutputStream().close();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("spilljoin " + String.join(" ", args) + " did not end within 2 minutes: "
                    + Files.readString(printed));
        }
        String text = Files.readString(printed);
        try (Stream<Path> left = Files.list(temporary)) {
            assertThat(left.toList()).as("files the command left in its temporary directory").isEmpty();
        }
        return new Run(process.exitValue(), text);
    }

    /** A CSV of {@code rows} rows (id 0, 1, …) and {@code columns} columns in all. */
    private Path wide(String name, int columns, int rows) throws IOException {
        Path file = dir.resolve(name);
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
            out.write("id");
            for (int c = 1; c < columns; c++) {
                out.write(",c" + c);
            }
            out.write('\n');
            for (int r = 0; r < rows; r++) {
                out.write(Integer.toString(r));
                for (int c = 1; c < columns; c++) {
                    out.write(',');
                    out.write(Integer.toString((r * 31 + c) % 1000));
                }
                out.write('\n');
            }
        }
        return file;
    }

    private List<String> lines(Path file) throws IOException {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.toList();
        }
    }

    private void assertNothingLeftBesides(String... names) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> !n.equals("spill")))
                    .containsExactlyInAnyOrder(names);
        }
        assertThat(spill).isEmptyDirectory();
    }

    @Test
    void aThousandColumnsJoinAtTheDefaultThreads() throws Exception {
        Path left = wide("l.csv", 1000, 300);
        Run run = spilljoin("join", "--left", left.toString(), "--right", left.toString(), "--on", "id",
                "--output", "out.csv");
        assertThat(run.code()).as(run.text()).isZero();
        List<String> out = lines(dir.resolve("out.csv"));
        assertThat(out).hasSize(301);
        List<String> input = lines(left);
        // left.id, c1.., right.id, c1..: each row twice over, side by side
        assertThat(out.get(1).split(",", -1)).hasSize(2000);
        assertThat(out.subList(1, 301)).containsExactlyInAnyOrderElementsOf(
                input.subList(1, 301).stream().map(row -> row + "," + row).toList());
    }

    @Test
    void tenThousandColumnsJoinOnOneThreadAndOnSeveral() throws Exception {
        Path left = wide("l.csv", 10_000, 6);
        Path right = dir.resolve("r.csv");
        Files.writeString(right, "id,name\n1,one\n4,four\n9,nine\n");
        for (String threads : List.of("1", "3")) {
            Run run = spilljoin("join", "--left", left.toString(), "--right", right.toString(), "--on", "id",
                    "--type", "left", "--threads", threads, "--output", "out" + threads + ".csv");
            assertThat(run.code()).as(run.text()).isZero();
            List<String> out = lines(dir.resolve("out" + threads + ".csv"));
            List<String> input = lines(left);
            assertThat(out).hasSize(7);
            assertThat(out.subList(1, 7)).containsExactlyInAnyOrder(input.get(1) + ",,", input.get(2) + ",1,one",
                    input.get(3) + ",,", input.get(4) + ",,", input.get(5) + ",4,four", input.get(6) + ",,");
        }
    }

    @Test
    void aFiftyMegabyteFieldIsRefusedWithItsFileLineColumnSizeAndTheHeapThatTakesIt() throws Exception {
        Path left = dir.resolve("l.csv");
        byte[] block = new byte[1 << 20];
        Arrays.fill(block, (byte) 'x');
        try (OutputStream out = Files.newOutputStream(left)) {
            out.write("id,note\n1,a\n2,".getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < 50; i++) {
                out.write(block);
            }
            out.write("\n3,c\n".getBytes(StandardCharsets.US_ASCII));
        }
        Path right = dir.resolve("r.csv");
        Files.writeString(right, "id,name\n2,two\n");
        Run run = spilljoin("join", "--left", left.toString(), "--right", right.toString(), "--on", "id",
                "--output", "out.csv");
        assertThat(run.code()).as(run.text()).isEqualTo(ExitCodes.INPUT);
        // the serial collector's heap is -Xmx less a survivor space, so the limit is a little under 4MB
        assertThat(run.text()).matches(Pattern.quote("spilljoin: " + left + " line 3: the row holds "
                + ((50 << 20) + 1) + " bytes (50.0MB; column 2 ('note') alone " + (50 << 20) + "), more than the"
                + " largest row taken, ") + "3\\.[0-9]MB \\(1/64 of the Java heap of 2[45][0-9](\\.[0-9])?MB\\)"
                + Pattern.quote("; if the row is right, give the JVM a larger heap, e.g. SPILLJOIN_HEAP=4g with"
                + " bin/spilljoin (java -Xmx otherwise); if not, check for a quote left open (or pass --on-error skip"
                + " to skip and count such rows)") + "\n");
        assertNothingLeftBesides("l.csv", "r.csv");
    }

    /**
     * A file whose first lines are short (so the result batches are sized for narrow rows) and whose last rows are
     * large, each under the per-row limit: the result batches are handed out by bytes, so 40 rows of 3.5 MB joined
     * in one go no longer fill a batch of 1,024 rows beyond the heap.
     */
    @Test
    void largeRowsAfterShortLinesJoinUnderTheHeapCap() throws Exception {
        Path left = dir.resolve("l.csv");
        byte[] large = new byte[3_500_000];
        Arrays.fill(large, (byte) 'x');
        int narrow = 5000;
        int wide = 40;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(left))) {
            out.write("id,note\n".getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < narrow; i++) {
                out.write((i + ",short" + i + "\n").getBytes(StandardCharsets.US_ASCII));
            }
            for (int i = narrow; i < narrow + wide; i++) {
                out.write((i + ",").getBytes(StandardCharsets.US_ASCII));
                out.write(large);
                out.write('\n');
            }
        }
        Path right = dir.resolve("r.csv");
        StringBuilder ids = new StringBuilder("id\n");
        for (int i = 0; i < narrow + wide; i++) {
            ids.append(i).append('\n');
        }
        Files.writeString(right, ids);
        for (String threads : List.of("1", "2")) {
            Run run = spilljoin("join", "--left", left.toString(), "--right", right.toString(), "--on", "id",
                    "--threads", threads, "--output", "out.csv");
            assertThat(run.code()).as(run.text()).isZero();
            assertThat(run.text()).doesNotContain("OutOfMemoryError");
            long rows = 0;
            long largeRows = 0;
            try (BufferedReader in = Files.newBufferedReader(dir.resolve("out.csv"), StandardCharsets.US_ASCII)) {
                assertThat(in.readLine()).isEqualTo("left.id,note,right.id");
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    rows++;
                    String[] fields = line.split(",", -1);
                    assertThat(fields).hasSize(3);
                    assertThat(fields[2]).isEqualTo(fields[0]);
                    largeRows += fields[1].length() == large.length ? 1 : 0;
                }
            }
            assertThat(rows).isEqualTo(narrow + wide);
            assertThat(largeRows).isEqualTo(wide);
            Files.delete(dir.resolve("out.csv"));
        }
        assertNothingLeftBesides("l.csv", "r.csv");
    }

    /**
     * PostgreSQL's own regression case (join_hash.sql: two rows of 320,000 bytes joined under work_mem 128kB): the
     * row, its file and line and the smallest --work-mem that holds it are named, and that --work-mem joins it.
     */
    @Test
    void aRowLargerThanTheBudgetNamesItsLineAndSizeAndTheWorkMemThatJoinsIt() throws Exception {
        Path wide = dir.resolve("wide.csv");
        String value = "x".repeat(320_000);
        Files.writeString(wide, "id,t\n1," + value + "\n2," + value + "\n");
        for (String threads : List.of("1", "2")) {
            Run refused = spilljoin("join", "--left", wide.toString(), "--right", wide.toString(), "--on", "id",
                    "--type", "left", "--work-mem", "128kB", "--threads", threads, "--output", "out.csv");
            assertThat(refused.code()).as(refused.text()).isEqualTo(ExitCodes.USAGE);
            Matcher message = Pattern.compile(Pattern.quote("spilljoin: --work-mem 128kB is too small for the row of "
                    + wide + " line 2 (") + "3200[0-9][0-9]" + Pattern.quote(" bytes in the join's row format): rows"
                    + " that large need --work-mem ") + "([0-9]+kB)" + Pattern.quote(" or more") + "\n")
                    .matcher(refused.text());
            assertThat(message.matches()).as(refused.text()).isTrue();
            assertNothingLeftBesides("wide.csv");

            Run joined = spilljoin("join", "--left", wide.toString(), "--right", wide.toString(), "--on", "id",
                    "--type", "left", "--work-mem", message.group(1), "--threads", threads, "--output", "out.csv");
            assertThat(joined.code()).as(joined.text()).isZero();
            List<String> out = lines(dir.resolve("out.csv"));
            assertThat(out).hasSize(3);
            assertThat(out.get(0)).isEqualTo("left.id,left.t,right.id,right.t");
            assertThat(out.subList(1, 3).equals(List.of("1," + value + ",1," + value, "2," + value + ",2," + value)))
                    .as("each row joined with itself").isTrue();
            Files.delete(dir.resolve("out.csv"));
        }
    }

    /**
     * A row too large deep in its file (the 150,001st of 200,000, behind dozens of batches) is named by its own line
     * (CSV) or row (Parquet), on the build side and on the probe side, on one worker and on two: with two, each worker
     * reads batches of its own, so the batch the file handed out last is seldom the refused row's (it named line
     * 199,154 for line 150,002 when the join's thread copied batches for its helper and read on). A row of 3 MB is
     * more than the read-ahead may have waiting: the worker that refused it keeps its batch, and the other worker
     * still gets the batches after it (it waited for that batch to be given back, for ever).
     */
    @Test
    void aRowTooLargeDeepInItsFileIsNamedByItsOwnLineOnEveryWorker() throws Exception {
        int rows = 200_000;
        int wide = 150_000;
        Path narrow = wide("narrow.csv", 2, rows);
        for (int valueBytes : new int[] {320_000, 3_000_000}) {
            String value = "x".repeat(valueBytes);
            StringBuilder csv = new StringBuilder("id,t\n");
            Object[][] parquetRows = new Object[rows][];
            for (int r = 0; r < rows; r++) {
                csv.append(r).append(',').append(r == wide ? value : "").append('\n');
                parquetRows[r] = new Object[] {(long) r, r == wide ? value : ""};
            }
            Path deepCsv = Files.writeString(dir.resolve("deep.csv"), csv);
            Path deepParquet = ParquetTestFiles.write(dir.resolve("deep.parquet"),
                    List.of(ParquetTestFiles.column("id", PrimitiveTypeName.INT64, null),
                            ParquetTestFiles.column("t", PrimitiveTypeName.BINARY, LogicalTypeAnnotation.stringType())),
                    parquetRows);
            for (String threads : List.of("1", "2")) {
                for (String buildSide : List.of("left", "right")) {
                    for (Path deep : List.of(deepCsv, deepParquet)) {
                        Run refused = spilljoin("join", "--left", deep.toString(), "--right", narrow.toString(),
                                "--on", "id", "--build-side", buildSide, "--work-mem", "128kB", "--threads", threads,
                                "--output", "out.csv");
                        String where = deep == deepCsv ? " line " + (wide + 2) : " row " + (wide + 1);
                        assertThat(refused.code()).as(refused.text()).isEqualTo(ExitCodes.USAGE);
                        String named = "spilljoin: --work-mem 128kB is too small for the row of " + deep + where
                                + " (" + valueBytes / 1000;
                        assertThat(refused.text()).as("rows of %d bytes, --threads %s, build side %s", valueBytes,
                                threads, buildSide).matches(Pattern.quote(named) + "[0-9]{3} bytes(?s).*");
                        assertNothingLeftBesides("deep.csv", "deep.parquet", "narrow.csv");
                    }
                }
            }
        }
    }

    /**
     * A row too large met before a larger one in the same batch (200,000 then 640,000 bytes): the first is named by its
     * line, with the --work-mem for the larger, and that --work-mem joins both.
     */
    @Test
    void aRowTooLargeNamesTheWorkMemForTheLargerRowsOfItsBatch() throws Exception {
        Path wide = dir.resolve("wide.csv");
        Files.writeString(wide, "id,t\n1," + "x".repeat(200_000) + "\n2," + "y".repeat(640_000) + "\n");
        Run refused = spilljoin("join", "--left", wide.toString(), "--right", wide.toString(), "--on", "id",
                "--work-mem", "128kB", "--threads", "1", "--output", "out.csv");
        assertThat(refused.code()).as(refused.text()).isEqualTo(ExitCodes.USAGE);
        Matcher message = Pattern.compile(Pattern.quote("spilljoin: --work-mem 128kB is too small for the row of "
                + wide + " line 2 (") + "2000[0-9][0-9]" + Pattern.quote(" bytes in the join's row format); the input"
                + " holds rows of up to ") + "6400[0-9][0-9]" + Pattern.quote(" bytes, which need --work-mem ")
                + "([0-9]+kB)" + Pattern.quote(" or more") + "\n").matcher(refused.text());
        assertThat(message.matches()).as(refused.text()).isTrue();
        assertNothingLeftBesides("wide.csv");

        Run joined = spilljoin("join", "--left", wide.toString(), "--right", wide.toString(), "--on", "id",
                "--work-mem", message.group(1), "--threads", "1", "--output", "out.csv");
        assertThat(joined.code()).as(joined.text()).isZero();
        assertThat(lines(dir.resolve("out.csv"))).hasSize(3);
        Files.delete(dir.resolve("out.csv"));
    }

    /**
     * Rows of one key (9 and 6 rows of 20,000 bytes) are accepted while partitioned and probed, then meet on the
     * nested-loop path, whose chunks cannot hold them under 57kB: the rows are named by their key's input and size
     * with the --work-mem that joins them, and that --work-mem joins all 54 pairs, on one worker and on two.
     */
    @Test
    void rowsOfOneKeyTooLargeForTheNestedLoopNameTheWorkMemThatJoinsThem() throws Exception {
        StringBuilder left = new StringBuilder("k,t\n");
        StringBuilder right = new StringBuilder("k,u\n");
        for (int i = 0; i < 9; i++) {
            left.append("0,").append(String.valueOf((char) ('a' + i)).repeat(20_000)).append('\n');
        }
        for (int i = 0; i < 6; i++) {
            right.append("0,").append(String.valueOf((char) ('A' + i)).repeat(20_000)).append('\n');
        }
        Path l = Files.writeString(dir.resolve("l.csv"), left);
        Path r = Files.writeString(dir.resolve("r.csv"), right);
        for (String threads : List.of("1", "2")) {
            Run refused = spilljoin("join", "--left", l.toString(), "--right", r.toString(), "--on", "k",
                    "--work-mem", "57kB", "--threads", threads, "--output", "out.csv");
            assertThat(refused.code()).as(refused.text()).isEqualTo(ExitCodes.USAGE);
            Matcher message = Pattern.compile(Pattern.quote("spilljoin: --work-mem 57kB is too small for the rows of"
                    + " one key of the right input (joined by chunks; 20017 bytes in the join's row format): rows that"
                    + " large need --work-mem ") + "([0-9]+kB)" + Pattern.quote(" or more") + "\n")
                    .matcher(refused.text());
            assertThat(message.matches()).as(refused.text()).isTrue();
            assertNothingLeftBesides("l.csv", "r.csv");

            Run joined = spilljoin("join", "--left", l.toString(), "--right", r.toString(), "--on", "k",
                    "--work-mem", message.group(1), "--threads", threads, "--output", "out.csv");
            assertThat(joined.code()).as(joined.text()).isZero();
            assertThat(lines(dir.resolve("out.csv"))).hasSize(1 + 9 * 6);
            Files.delete(dir.resolve("out.csv"));
        }
    }
}
