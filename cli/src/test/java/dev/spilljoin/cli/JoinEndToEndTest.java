package dev.spilljoin.cli;

import static dev.spilljoin.cli.CsvTestFiles.row;
import static dev.spilljoin.cli.CsvTestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.JoinConfig;
import dev.spilljoin.spill.ByteSize;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@code join} command end to end, in process ({@link Main#run} with captured stdout and stderr): every join
 * type against an oracle computed here from the parsed input, in memory and spilled under the smallest budget;
 * hand-checked cases for NULLs, quoting, UTF-8, typing and output naming; failures with their exit codes. After
 * each test the spill directory is empty.
 */
class JoinEndToEndTest {
    @org.junit.jupiter.api.io.TempDir
    Path dir;
    private Path spill;
    private String out;
    private String err;

    @BeforeEach
    void spillDirectory() throws IOException {
        spill = Files.createDirectory(dir.resolve("spill"));
    }

    @AfterEach
    void nothingLeftInTheSpillDirectory() throws IOException {
        try (Stream<Path> files = Files.list(spill)) {
            assertThat(files).isEmpty();
        }
    }

    private int run(String... args) {
        CapturedRun run = CapturedRun.of(args);
        out = run.out();
        err = run.err();
        return run.code();
    }

    /** Runs {@code join} on the two files into {@code out.csv}; returns the exit code. */
    private int join(Path left, Path right, String... extra) {
        List<String> args = new ArrayList<>(List.of("join", "--left", left.toString(), "--right", right.toString(),
                "--output", dir.resolve("out.csv").toString(), "--spill-dir", spill.toString(), "--quiet"));
        args.addAll(Arrays.asList(extra));
        return run(args.toArray(new String[0]));
    }

    private String output() throws IOException {
        return Files.readString(dir.resolve("out.csv"));
    }

    /** The output's lines after the header, sorted (row order is unspecified); rows must not span lines. */
    private List<String> sortedLines() throws IOException {
        List<String> lines = new ArrayList<>(output().lines().skip(1).toList());
        lines.sort(Comparator.naturalOrder());
        return lines;
    }

    private String header() throws IOException {
        return output().lines().findFirst().orElseThrow();
    }

    // ------------------------------------------------------------------ every join type against an oracle

    private static final String[] KEY_TEXTS = {"a", "b", "", "é✓", "x,y", "q\"q"};
    private static final String[] PAYLOADS = {"plain", "", null, "with,comma", "quote\"inside", "new\nline",
        "crlf\r\nend", "ünïcødé ✓ 日本", "  spaced  ", "5\"3"};

    @ParameterizedTest
    @EnumSource(JoinKind.class)
    void everyJoinTypeMatchesTheOracle(JoinKind kind) throws IOException {
        long seed = SeededRandom.seed("JoinEndToEndTest " + kind);
        SplittableRandom random = new SplittableRandom(seed);
        boolean twoKeys = kind != JoinKind.NOT_IN;
        for (int round = 0; round < 6; round++) {
            // Sizes vary so that either file is the smaller one (the build side) across rounds; 0 rows happens.
            List<List<String>> left = randomRows(random, random.nextInt(0, 40), twoKeys);
            List<List<String>> right = randomRows(random, random.nextInt(0, 40), twoKeys);
            Path leftFile = write(dir, "left.csv", csv(twoKeys ? "k1,k2,lp" : "k1,lp", left));
            Path rightFile = write(dir, "right.csv", csv(twoKeys ? "k1,k2,rp" : "k1,rp", right));
            int code = join(leftFile, rightFile, "--on", twoKeys ? "k1,k2" : "k1", "--type", kind.spelling(),
                    "--schema-left", "k1:bigint", "--schema-right", "k1:bigint");
            assertThat(code).as("seed %d round %d: %s", seed, round, err).isZero();
            List<List<String>> expected = oracle(kind, left, right, twoKeys ? 2 : 1);
            List<List<String>> actual = CsvTestFiles.readAll(dir.resolve("out.csv"), CsvFormat.DEFAULT);
            assertThat(sorted(actual)).as("seed %d round %d, %s join of %d and %d rows", seed, round, kind,
                    left.size(), right.size()).isEqualTo(sorted(expected));
        }
        assertThat(header()).isEqualTo(kind.leftColumnsOnly() ? (twoKeys ? "k1,k2,lp" : "k1,lp")
                : twoKeys ? "left.k1,left.k2,lp,right.k1,right.k2,rp" : "left.k1,lp,right.k1,rp");
    }

    @ParameterizedTest
    @EnumSource(JoinKind.class)
    void everyJoinTypeSpilledUnderTheSmallestBudgetMatchesTheOracle(JoinKind kind) throws IOException {
        long seed = SeededRandom.seed("JoinEndToEndTest spilled " + kind);
        SplittableRandom random = new SplittableRandom(seed);
        boolean twoKeys = kind != JoinKind.NOT_IN;
        List<List<String>> left = new ArrayList<>();
        List<List<String>> right = new ArrayList<>();
        for (List<List<String>> rows : List.of(left, right)) {
            for (int i = 0; i < 8_000; i++) {
                List<String> row = new ArrayList<>();
                // NOT IN: one right NULL would empty the result, so its right side has none.
                boolean nullKey = random.nextInt(20) == 0 && !(kind == JoinKind.NOT_IN && rows == right);
                row.add(nullKey ? null : Integer.toString(random.nextInt(12_000)));
                if (twoKeys) {
                    row.add(KEY_TEXTS[random.nextInt(2)]);
                }
                row.add(PAYLOADS[random.nextInt(PAYLOADS.length)]);
                rows.add(row);
            }
        }
        Path leftFile = write(dir, "left.csv", csv(twoKeys ? "k1,k2,lp" : "k1,lp", left));
        Path rightFile = write(dir, "right.csv", csv(twoKeys ? "k1,k2,rp" : "k1,rp", right));
        Path stats = dir.resolve("stats.json");
        int code = join(leftFile, rightFile, "--on", twoKeys ? "k1,k2" : "k1", "--type", kind.spelling(),
                "--work-mem", ByteSize.format(JoinPlanner.MINIMUM_WORK_MEM), "--stats", stats.toString());
        assertThat(code).as("seed %d: %s", seed, err).isZero();
        String json = Files.readString(stats);
        assertThat(Long.parseLong(field(json, "partitions"))).as("it spilled").isPositive();
        assertThat(Long.parseLong(field(json, "peak_reserved_bytes"))).isLessThanOrEqualTo(JoinPlanner.MINIMUM_WORK_MEM);
        List<List<String>> expected = oracle(kind, left, right, twoKeys ? 2 : 1);
        List<List<String>> actual = CsvTestFiles.readAll(dir.resolve("out.csv"), CsvFormat.DEFAULT);
        assertThat(field(json, "rows_out")).isEqualTo(Integer.toString(expected.size()));
        assertThat(sorted(actual)).as("seed %d, %s join", seed, kind).isEqualTo(sorted(expected));
    }

    /** Rows of (k1 BIGINT text or NULL, [k2 text or NULL,] payload): few distinct keys, so duplicates abound. */
    private static List<List<String>> randomRows(SplittableRandom random, int count, boolean twoKeys) {
        List<List<String>> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            List<String> row = new ArrayList<>();
            row.add(random.nextInt(8) == 0 ? null : Integer.toString(random.nextInt(-2, 4)));
            if (twoKeys) {
                row.add(random.nextInt(8) == 0 ? null : KEY_TEXTS[random.nextInt(3)]);
            }
            row.add(PAYLOADS[random.nextInt(PAYLOADS.length)]);
            rows.add(row);
        }
        return rows;
    }

    /**
     * The result by definition (SQL semantics: a NULL in any key column never matches), computed from the parsed
     * rows: the right rows indexed by their key values, then each left row looked up.
     */
    static List<List<String>> oracle(JoinKind kind, List<List<String>> left, List<List<String>> right, int keys) {
        List<List<String>> result = new ArrayList<>();
        int leftWidth = left.isEmpty() ? keys + 1 : left.get(0).size();
        int rightWidth = right.isEmpty() ? keys + 1 : right.get(0).size();
        Map<List<String>, List<Integer>> rightByKey = new HashMap<>();
        boolean rightHasNullKey = false;
        for (int j = 0; j < right.size(); j++) {
            if (hasNullKey(right.get(j), keys)) {
                rightHasNullKey = true;
            } else {
                rightByKey.computeIfAbsent(right.get(j).subList(0, keys), k -> new ArrayList<>()).add(j);
            }
        }
        boolean[] rightMatched = new boolean[right.size()];
        for (List<String> l : left) {
            List<Integer> matches = hasNullKey(l, keys) ? List.of()
                    : rightByKey.getOrDefault(l.subList(0, keys), List.of());
            boolean matched = !matches.isEmpty();
            for (int j : matches) {
                rightMatched[j] = true;
                if (!kind.leftColumnsOnly()) {
                    result.add(concat(l, right.get(j)));
                }
            }
            switch (kind) {
                case LEFT, FULL -> {
                    if (!matched) {
                        result.add(concat(l, nulls(rightWidth)));
                    }
                }
                case SEMI -> {
                    if (matched) {
                        result.add(l);
                    }
                }
                case ANTI -> {
                    if (!matched) {
                        result.add(l);
                    }
                }
                case NOT_IN -> {
                    if (right.isEmpty() || (!matched && !rightHasNullKey && !hasNullKey(l, keys))) {
                        result.add(l);
                    }
                }
                case INNER, RIGHT -> {
                }
            }
        }
        if (kind == JoinKind.RIGHT || kind == JoinKind.FULL) {
            for (int j = 0; j < right.size(); j++) {
                if (!rightMatched[j]) {
                    result.add(concat(nulls(leftWidth), right.get(j)));
                }
            }
        }
        return result;
    }

    private static boolean hasNullKey(List<String> row, int keys) {
        for (int k = 0; k < keys; k++) {
            if (row.get(k) == null) {
                return true;
            }
        }
        return false;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> row = new ArrayList<>(a);
        row.addAll(b);
        return row;
    }

    private static List<String> nulls(int width) {
        return Arrays.asList(new String[width]);
    }

    private static List<String> sorted(List<List<String>> rows) {
        return rows.stream().map(r -> r.stream().map(v -> v == null ? "\u0000NULL" : "[" + v + "]").toList()
                .toString()).sorted().toList();
    }

    /** CSV text written here, independently of CsvWriter: NULL unquoted empty, "" quoted, specials quoted. */
    static String csv(String header, List<List<String>> rows) {
        StringBuilder text = new StringBuilder(header).append('\n');
        for (List<String> row : rows) {
            for (int c = 0; c < row.size(); c++) {
                if (c > 0) {
                    text.append(',');
                }
                String v = row.get(c);
                if (v == null) {
                    continue;
                }
                if (v.isEmpty() || v.contains(",") || v.contains("\"") || v.contains("\n") || v.contains("\r")) {
                    text.append('"').append(v.replace("\"", "\"\"")).append('"');
                } else {
                    text.append(v);
                }
            }
            text.append('\n');
        }
        return text.toString();
    }

    @Test
    void multiColumnTextKeysMatchOnlyWhenEveryColumnIsEqualAndNoneIsNull() throws IOException {
        List<List<String>> left = List.of(row("1", "a", "l1"), row("1", "", "l2"), row("1", null, "l3"),
                row("2", "é✓", "l4"), row("2", "x,y", "l5"));
        List<List<String>> right = List.of(row("1", "a", "r1"), row("1", "", "r2"), row("1", null, "r3"),
                row("2", "é✓", "r4"), row("3", "x,y", "r5"));
        Path l = write(dir, "l.csv", csv("k1,k2,lp", left));
        Path r = write(dir, "r.csv", csv("k1,k2,rp", right));
        assertThat(join(l, r, "--on", "k1=k1,k2=k2")).as(err).isZero();
        assertThat(sortedLines()).containsExactly("1,\"\",l2,1,\"\",r2", "1,a,l1,1,a,r1", "2,é✓,l4,2,é✓,r4");
    }

    // ------------------------------------------------------------------ NULL, "", quoting, UTF-8

    @Test
    void aHeaderThatAlreadyHoldsAPrefixedNameIsPrefixedAgain() throws IOException {
        Path l = write(dir, "l.csv", "id,left.id,v\n1,a,b\n");
        Path r = write(dir, "r.csv", "right.id,id\nc,1\n");
        for (String kind : new String[] {"inner", "full"}) {
            assertThat(join(l, r, "--on", "id", "--type", kind)).as(err).isZero();
            assertThat(output()).isEqualTo("left.left.id,left.id,v,right.id,right.right.id\n1,a,b,c,1\n");
        }
        assertThat(join(l, r, "--on", "left.id=right.id", "--type", "semi")).as(err).isZero();
        assertThat(output()).isEqualTo("id,left.id,v\n");
    }

    @Test
    void headerBytesThatAreNotUtf8PassThroughAndControlCharactersAreEscapedInMessages() throws IOException {
        byte[] header = {'i', 'd', ',', 'v', (byte) 0xFF, (byte) 0xC3, 'x', '\n'};
        Path l = CsvTestFiles.writeBytes(dir, "l.csv", concatBytes(header, "1,a\n".getBytes(StandardCharsets.UTF_8)));
        Path r = write(dir, "r.csv", "id\n1\n");
        assertThat(join(l, r, "--on", "id", "--type", "semi")).as(err).isZero();
        assertThat(Files.readAllBytes(dir.resolve("out.csv")))
                .isEqualTo(concatBytes(header, "1,a\n".getBytes(StandardCharsets.UTF_8)));

        Path escape = write(dir, "e.csv", "id,\u001b[2Jboom\n1,x\n");
        assertThat(join(escape, r, "--on", "nope=id")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("\\x1b[2Jboom").doesNotContain("\u001b");
        Path value = write(dir, "v.csv", "id\n1\n\"\u001b]0;x\u0007\"\n");
        assertThat(join(value, r, "--on", "id", "--schema-left", "id:bigint")).isEqualTo(ExitCodes.INPUT);
        assertThat(err).contains("value '\\x1b]0;x\\x07'").doesNotContain("\u001b").doesNotContain("\u0007");
        assertThat(err.lines().count()).isEqualTo(1);
    }

    private static byte[] concatBytes(byte[] a, byte[] b) {
        byte[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void nullKeysNeverMatchAndNullStaysDistinctFromTheEmptyStringOnOutput() throws IOException {
        Path l = write(dir, "l.csv", "k,v\nx,1\n,2\n\"\",3\nx,\ny,\"\"\n");
        Path r = write(dir, "r.csv", "k,w\nx,a\n\"\",b\n,c\n");
        assertThat(join(l, r, "--on", "k", "--type", "full")).as(err).isZero();
        assertThat(header()).isEqualTo("left.k,v,right.k,w");
        assertThat(sortedLines()).containsExactlyInAnyOrder(
                ",,,c",          // right NULL key: unmatched, left side padded
                ",2,,",          // left NULL key: unmatched, right side padded
                "\"\",3,\"\",b", // the empty string is a key like any other
                "x,,x,a",        // a NULL payload stays NULL (unquoted empty)
                "x,1,x,a",
                "y,\"\",,");     // an empty payload stays "" while the padding is NULL
    }

    @Test
    void quotingEmbeddedDelimitersQuotesNewlinesAndUtf8RoundTrip() throws IOException {
        Path l = write(dir, "l.csv", "id,text\n1,\"a,b\"\n2,\"say \"\"hi\"\"\"\n3,\"two\nlines\"\n4,日本語 ✓\n"
                + "5,\"cr\r\nlf\"\n6,5\"3\n");
        Path r = write(dir, "r.csv", "id,other\n1,x\n2,y\n3,z\n4,ü\n5,v\n6,w\n");
        assertThat(join(l, r, "--on", "id", "--type", "semi")).as(err).isZero();
        List<List<String>> rows = CsvTestFiles.readAll(dir.resolve("out.csv"), CsvFormat.DEFAULT);
        assertThat(sorted(rows)).isEqualTo(sorted(List.of(row("1", "a,b"), row("2", "say \"hi\""),
                row("3", "two\nlines"), row("4", "日本語 ✓"), row("5", "cr\r\nlf"), row("6", "5\"3"))));
        assertThat(output()).contains("1,\"a,b\"\n", "2,\"say \"\"hi\"\"\"\n", "3,\"two\nlines\"\n",
                "4,日本語 ✓\n", "6,\"5\"\"3\"\n");
    }

    @Test
    void aByteOrderMarkIsSkippedAndOtherBytesPassThrough() throws IOException {
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
        byte[] body = "k,v\n1,caf\u00e9\n".getBytes(StandardCharsets.UTF_8);
        byte[] content = new byte[bom.length + body.length];
        System.arraycopy(bom, 0, content, 0, bom.length);
        System.arraycopy(body, 0, content, bom.length, body.length);
        Path l = CsvTestFiles.writeBytes(dir, "l.csv", content);
        Path r = write(dir, "r.csv", "k\n1\n");
        assertThat(join(l, r, "--on", "k")).as(err).isZero();
        assertThat(output()).isEqualTo("left.k,v,right.k\n1,café,1\n");
    }

    // ------------------------------------------------------------------ key typing

    @Test
    void bigintPairedWithDoubleComparesAsExactDecimalsWithSignedZerosEqualAndNaNEqualToItself() throws IOException {
        Path l = write(dir, "l.csv", "id,v\n1,one\n0,zero\n2,two\n");
        Path r = write(dir, "r.csv", "id,w\n1.0,a\n-0.0,b\n2.5,c\n1e0,d\n");
        assertThat(join(l, r, "--on", "id")).as(err).isZero();
        assertThat(sortedLines()).as("the BIGINT side as read, the DOUBLE side's integers as integers")
                .containsExactly("0,zero,0,b", "1,one,1,a", "1,one,1,d");

        Path nanLeft = write(dir, "nl.csv", "x\nNaN\n1.5\n-Infinity\n");
        Path nanRight = write(dir, "nr.csv", "x\nNaN\n-Infinity\n3\n");
        assertThat(join(nanLeft, nanRight, "--on", "x", "--type", "semi")).as(err).isZero();
        assertThat(sortedLines()).containsExactly("-Infinity", "NaN");
    }

    @Test
    void integersBeyondBigintCompareByEveryDigitAndAreWrittenAsRead() throws IOException {
        Path l = write(dir, "l.csv", "id,v\n9223372036854775807,max\n12345678901234567890,b\n1,c\n-0,d\n");
        Path r = write(dir, "r.csv", "id,w\n9223372036854775808,x\n12345678901234567891,y\n12345678901234567890,z\n"
                + "1,u\n0,t\n-98765432109876543210,s\n");
        assertThat(join(l, r, "--on", "id")).as(err).isZero();
        assertThat(sortedLines()).as("no two distinct integers match; -0 is 0")
                .containsExactly("0,d,0,t", "1,c,1,u", "12345678901234567890,b,12345678901234567890,z");
        assertThat(join(r, r, "--on", "id", "--type", "semi")).as(err).isZero();
        assertThat(output()).as("every integer written back as it was read")
                .isEqualTo(Files.readString(r));
    }

    @Test
    void aBigintMatchesADoubleOnlyWhenTheyAreTheSameNumber() throws IOException {
        Path l = write(dir, "l.csv", "id,v\n9007199254740993,odd\n9007199254740992,even\n3,three\n");
        Path r = write(dir, "r.csv", "id,w\n9007199254740992.0,x\n1.5,y\n30e-1,z\n0.3e1,u\n");
        assertThat(join(l, r, "--on", "id")).as(err).isZero();
        assertThat(sortedLines()).as("2^53 + 1 is not 2^53, although both are the same double")
                .containsExactly("3,three,3,u", "3,three,3,z", "9007199254740992,even,9007199254740992,x");
        assertThat(join(l, r, "--on", "id", "--type", "full")).as(err).isZero();
        assertThat(sortedLines()).as("unmatched DOUBLE values are written as read")
                .contains(",,1.5,y", "9007199254740993,odd,,");
    }

    @Test
    void integersBeyondBigintWithDoublesAreRefusedWithAHintThatWorksWhenFollowed() throws IOException {
        Path l = write(dir, "l.csv", "id,v\n12345678901234567890,a\n");
        Path r = write(dir, "r.csv", "rid,w\n1.5,x\n12345678901234567890,y\n");
        assertThat(join(l, r, "--on", "id=rid")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("left 'id' is integers beyond BIGINT").contains("right 'rid' is DOUBLE");
        assertThat(join(l, r, followedHint(err))).as(err).isZero();
        assertThat(output()).isEqualTo("id,v,rid,w\n12345678901234567890,a,12345678901234567890,y\n");
    }

    /**
     * Found by the it module's CliDifferentialFuzzTest: the hint named the first mismatched pair only and dropped the
     * entries already given, so that following it named the next pair, whose hint brought the first one back.
     */
    @Test
    void aHintForMismatchedKeysCoversEveryPairAndKeepsTheEntriesGiven() throws IOException {
        Path l = write(dir, "l.csv", "a,b,v\n1,x,p\n2,true,q\n");
        Path r = write(dir, "r.csv", "a,b,w\nu,false,P\n2,true,Q\n");
        assertThat(join(l, r, "--on", "a,b", "--schema-left", "v:varchar")).isEqualTo(ExitCodes.USAGE);
        java.util.regex.Matcher hint = java.util.regex.Pattern
                .compile("--schema-left '([^']*)' --schema-right '([^']*)'").matcher(err);
        assertThat(hint.find()).as(err).isTrue();
        assertThat(hint.group(1)).isEqualTo("v:varchar,a:varchar,b:varchar");
        assertThat(hint.group(2)).isEqualTo("a:varchar,b:varchar");
        assertThat(join(l, r, "--on", "a,b", "--schema-left", hint.group(1), "--schema-right", hint.group(2)))
                .as(err).isZero();
        assertThat(output()).isEqualTo("left.a,left.b,v,right.a,right.b,w\n2,true,q,2,true,Q\n");
    }

    /** A column declared INTEGER holds 32-bit values even when its partner is BIGINT, as when both are INTEGER. */
    @Test
    void aDeclaredIntegerKeyIsCheckedAgainstItsRangeBesideABigintPartner() throws IOException {
        Path l = write(dir, "l.csv", "id,v\n7,seven\n5000000000,big\n");
        Path r = write(dir, "r.csv", "id,w\n7,a\n5000000000,b\n");
        for (String partner : new String[] {"id:bigint", "id:integer"}) {
            assertThat(join(l, r, "--on", "id", "--schema-left", "id:integer", "--schema-right", partner))
                    .as(partner + ": " + err).isEqualTo(ExitCodes.INPUT);
            assertThat(err).as(partner).contains("value '5000000000' in column 1 ('id') is not an INTEGER");
            assertThat(join(l, r, "--on", "id", "--schema-left", "id:integer", "--schema-right", partner,
                    "--on-error", "skip")).as(partner + ": " + err).isZero();
            assertThat(sortedLines()).as(partner).containsExactly("7,seven,7,a");
        }
        assertThat(join(l, r, "--on", "id", "--schema-left", "id:bigint")).as(err).isZero();
        assertThat(sortedLines()).containsExactly("5000000000,big,5000000000,b", "7,seven,7,a");
    }

    @Test
    void aValueNotFittingAnInferredTypeHintsAtFlagsThatWorkWhenFollowed() throws IOException {
        StringBuilder left = new StringBuilder("id,v\n");
        for (int i = 0; i < KeyTypeInference.SAMPLE_ROWS; i++) {
            left.append(i).append(",n\n");
        }
        Path l = write(dir, "l.csv", left.append("x7,late\n").toString());
        Path r = write(dir, "r.csv", "rid,w\n7,seven\n8,eight\n");
        assertThat(join(l, r, "--on", "id=rid")).isEqualTo(ExitCodes.INPUT);
        assertThat(err).contains("value 'x7' in column 1 ('id') is not a BIGINT");
        assertThat(join(l, r, followedHint(err))).as(err).isZero();
        assertThat(sortedLines()).containsExactly("7,n,7,seven", "8,n,8,eight");
    }

    /** The {@code --on} and schema flags of the hint in {@code message}, as its reader would type them. */
    private static String[] followedHint(String message) {
        java.util.regex.Matcher hint = java.util.regex.Pattern
                .compile("--schema-left '([^']*)' --schema-right '([^']*)'").matcher(message);
        assertThat(hint.find()).as(message).isTrue();
        String leftKey = hint.group(1).substring(0, hint.group(1).lastIndexOf(':'));
        String rightKey = hint.group(2).substring(0, hint.group(2).lastIndexOf(':'));
        return new String[] {"--on", leftKey + "=" + rightKey, "--schema-left", hint.group(1), "--schema-right",
            hint.group(2)};
    }

    @Test
    void codesWithLeadingZerosStayTextAndBooleansMatchInAnyCase() throws IOException {
        Path l = write(dir, "l.csv", "code,flag\n007,TRUE\n7,false\n");
        Path r = write(dir, "r.csv", "code,flag\n7,true\n007,False\n");
        assertThat(join(l, r, "--on", "code")).as(err).isZero();
        assertThat(sortedLines()).as("007 is not 7").containsExactly("007,TRUE,007,False", "7,false,7,true");
        assertThat(join(l, r, "--on", "flag")).as(err).isZero();
        assertThat(sortedLines()).as("typed keys are written in their type's form")
                .containsExactly("007,true,7,true", "7,false,007,false");
        assertThat(join(l, r, "--on", "code=flag")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).contains("left 'code' is VARCHAR").contains("right 'flag' is BOOLEAN");
    }

    @Test
    void noHeaderAndATabDelimiter() throws IOException {
        Path l = write(dir, "l.tsv", "1\ta,b\n2\tc\n");
        Path r = write(dir, "r.tsv", "2\tx\n1\ty\n");
        assertThat(join(l, r, "--on", "column1", "--no-header", "--delimiter", "\\t")).as(err).isZero();
        assertThat(header()).isEqualTo("left.column1\tleft.column2\tright.column1\tright.column2");
        assertThat(sortedLines()).containsExactly("1\ta,b\t1\ty", "2\tc\t2\tx");
    }

    @Test
    void numbersHoldingTheDelimiterAreQuotedAndTheOutputReadsBack() throws IOException {
        Path l = write(dir, "l.csv", "k-v\n\"-5\"-a\n7-b\n");
        Path r = write(dir, "r.csv", "k-w\n\"-5\"-x\n7-y\n");
        assertThat(join(l, r, "--on", "k", "--delimiter", "-", "--schema-left", "k:bigint", "--schema-right",
                "k:bigint")).as(err).isZero();
        assertThat(sortedLines()).containsExactly("\"-5\"-a-\"-5\"-x", "7-b-7-y");
        Path joined = Files.move(dir.resolve("out.csv"), dir.resolve("joined.csv"));
        assertThat(join(joined, r, "--on", "left.k=k", "--delimiter", "-", "--schema-left", "left.k:bigint",
                "--schema-right", "k:bigint")).as(err).isZero();
        assertThat(sortedLines()).containsExactly("\"-5\"-a-\"-5\"-x-\"-5\"-x", "7-b-7-y-7-y");
    }

    @Test
    void withoutOutputTheRowsGoToStandardOutput() throws IOException {
        Path l = write(dir, "l.csv", "id,v\n1,a\n");
        Path r = write(dir, "r.csv", "id,w\n1,b\n");
        assertThat(run("join", "--left", l.toString(), "--right", r.toString(), "--on", "id", "--spill-dir",
                spill.toString())).as(err).isZero();
        assertThat(out).isEqualTo("left.id,v,right.id,w\n1,a,1,b\n");
        assertThat(err).as("no progress line when stderr is not a terminal").isEmpty();
    }

    // ------------------------------------------------------------------ --stats

    @Test
    void statsHaveEveryFieldAndAgreeWithTheOutput() throws IOException {
        StringBuilder big = new StringBuilder("id,v\n");
        for (int i = 0; i < 500; i++) {
            big.append(i % 50).append(",v").append(i).append('\n');
        }
        Path l = write(dir, "l.csv", big.toString());
        Path r = write(dir, "r.csv", "id,w\n1,a\n2,b\n2,c\nbad,d\n99,e\n");
        Path stats = dir.resolve("stats.json");
        assertThat(join(l, r, "--on", "id", "--stats", stats.toString(), "--on-error", "skip", "--schema-right",
                "id:bigint", "--work-mem", "4MB")).as(err).isZero();
        String json = Files.readString(stats);
        long linesOut = output().lines().count() - 1;
        assertThat(linesOut).isEqualTo(30); // id 1: 10 left rows × 1, id 2: 10 × 2
        assertThat(field(json, "rows_out")).isEqualTo("30");
        assertThat(field(json, "rows_left")).isEqualTo("500");
        assertThat(field(json, "rows_right")).isEqualTo("4");
        assertThat(field(json, "rows_skipped")).isEqualTo("1");
        assertThat(field(json, "build_side")).as("the smaller file").isEqualTo("\"right\"");
        assertThat(field(json, "join_type")).isEqualTo("\"inner\"");
        assertThat(field(json, "budget_bytes")).isEqualTo(Long.toString(4L << 20));
        long peak = Long.parseLong(field(json, "peak_reserved_bytes"));
        assertThat(peak).isPositive().isLessThanOrEqualTo(4L << 20);
        assertThat(Long.parseLong(field(json, "elapsed_ms"))).isNotNegative();
        for (String name : List.of("spilled_bytes_build", "spilled_bytes_probe", "partitions",
                "max_recursion_depth", "heavy_hitter_keys")) {
            assertThat(json).contains("\"" + name + "\": ");
        }
        assertThat(json).as("the operator's own stats, nested").contains("\"join\": {").contains("\"INNER\"");
    }

    @Test
    void parquetOutputTakesResultBatchesOfUpToFourThousandRowsAndCsvOutputOfUpToOneThousand() throws IOException {
        Path left = CsvTestFiles.numbered(dir, "l.csv", 40_000, "");
        Path right = CsvTestFiles.numbered(dir, "r.csv", 40_000, "");
        long[] batches = new long[2];
        String[] outputs = {"out.parquet", "out.csv"};
        for (int i = 0; i < outputs.length; i++) {
            Path stats = dir.resolve("stats-" + i + ".json");
            assertThat(run("join", "--left", left.toString(), "--right", right.toString(), "--on", "id", "--output",
                    dir.resolve(outputs[i]).toString(), "--stats", stats.toString(), "--spill-dir", spill.toString(),
                    "--quiet")).as(err).isZero();
            String json = Files.readString(stats);
            assertThat(field(json, "rows_out")).isEqualTo("40000");
            Matcher count = Pattern.compile("\"output_batches\":(\\d+)")
                    .matcher(json);
            assertThat(count.find()).as(json).isTrue();
            batches[i] = Long.parseLong(count.group(1));
        }
        assertThat(batches[0]).as("Parquet: batches of up to %d rows", BatchSizing.MAX_ROWS)
                .isBetween(40_000L / BatchSizing.MAX_ROWS, 2 * 40_000L / BatchSizing.MAX_ROWS);
        assertThat(batches[1]).as("CSV: the operator's default")
                .isGreaterThanOrEqualTo(40_000L / JoinConfig.DEFAULT.outputBatchRows());
    }

    /** The raw JSON text of top-level field {@code name} (the stats file has one field per line). */
    static String field(String json, String name) {
        String prefix = "  \"" + name + "\": ";
        return json.lines().filter(line -> line.startsWith(prefix)).findFirst()
                .map(line -> line.substring(prefix.length()).replaceAll(",$", ""))
                .orElseThrow(() -> new AssertionError("no field " + name + " in " + json));
    }

    // ------------------------------------------------------------------ failures: exit code, message, no file left

    private void assertNoOutputLeft() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .noneMatch(name -> name.contains("out.csv") || name.contains("stats.json"));
        }
    }

    @Test
    void aMalformedRowWhileSpillingFailsWithItsLineAndLeavesNoFile() throws IOException {
        Path l = CsvTestFiles.numbered(dir, "l.csv", 20_000, "20000,\"unclosed\n");
        Path r = CsvTestFiles.numbered(dir, "r.csv", 20_000, "");
        assertThat(join(l, r, "--on", "id", "--work-mem", "256kB", "--stats", dir.resolve("stats.json").toString()))
                .isEqualTo(ExitCodes.INPUT);
        assertThat(err).startsWith("spilljoin: " + l + " line 20002: the quote opened in column 2 ('v') on line"
                + " 20002 is never closed");
        assertThat(err.lines().count()).isEqualTo(1);
        assertNoOutputLeft();
    }

    @Test
    void aValueNotFittingItsTypeNamesFileLineAndColumn() throws IOException {
        Path l = write(dir, "l.csv", "id,v\n1,a\n2,b\nx3,c\n");
        Path r = write(dir, "r.csv", "id,w\n1,a\n");
        assertThat(join(l, r, "--on", "id", "--schema-left", "id:bigint")).isEqualTo(ExitCodes.INPUT);
        assertThat(err).startsWith("spilljoin: " + l + " line 4").contains("column 1 ('id')").contains("x3");
        assertThat(err.lines().count()).isEqualTo(1);
        assertNoOutputLeft();
    }

    @Test
    void aBuildSideLargerThanTheBudgetSpillsAndNothingIsLeftInTheSpillDirectory() throws IOException {
        Path l = CsvTestFiles.numbered(dir, "l.csv", 60_000, "");
        Path r = CsvTestFiles.numbered(dir, "r.csv", 60_000, "60000,x\n");
        Path stats = dir.resolve("stats.json");
        assertThat(join(l, r, "--on", "id", "--work-mem", "1MB", "--stats", stats.toString())).as(err).isZero();
        String json = Files.readString(stats);
        assertThat(field(json, "rows_out")).isEqualTo("60000");
        assertThat(output().lines().count()).isEqualTo(60_001);
        assertThat(field(json, "build_side")).isEqualTo("\"left\"");
        assertThat(Long.parseLong(field(json, "partitions"))).isPositive();
        assertThat(Long.parseLong(field(json, "spilled_bytes_build"))).isPositive();
        assertThat(Long.parseLong(field(json, "spilled_bytes_probe"))).isPositive();
        assertThat(Long.parseLong(field(json, "peak_reserved_bytes"))).isLessThanOrEqualTo(1 << 20);
    }

    @Test
    void aBudgetBelowTheOperatorsMinimumIsAUsageErrorNamingIt() throws IOException {
        Path l = write(dir, "l.csv", "id\n1\n");
        long below = JoinPlanner.MINIMUM_WORK_MEM - 1024;
        assertThat(join(l, l, "--on", "id", "--work-mem", below / 1024 + "kB")).isEqualTo(ExitCodes.USAGE);
        assertThat(err).isEqualTo("spilljoin: --work-mem " + below / 1024 + "kB is below the minimum of "
                + ByteSize.format(JoinPlanner.MINIMUM_WORK_MEM) + "; give at least that much\n");
        assertNoOutputLeft();
    }

    @Test
    void aSpillDirectoryWhereNothingCanBeCreatedIsAResourceError() throws IOException {
        Path l = CsvTestFiles.numbered(dir, "l.csv", 30_000, "");
        Path r = CsvTestFiles.numbered(dir, "r.csv", 30_000, "30000,x\n");
        Path proc = Path.of("/proc");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(proc), "needs Linux's /proc");
        assertThat(run("join", "--left", l.toString(), "--right", r.toString(), "--on", "id", "--work-mem", "1MB",
                "--output", dir.resolve("out.csv").toString(), "--spill-dir", proc.toString(), "--quiet"))
                .isEqualTo(ExitCodes.RESOURCES);
        assertThat(err).startsWith("spilljoin: --spill-dir /proc: ").contains("spill directory");
        assertThat(err.lines().count()).isEqualTo(1);
        assertNoOutputLeft();
    }

    @Test
    void anInterruptedRunExitsWith130AndLeavesNoFile() throws IOException {
        Path l = write(dir, "l.csv", "id,v\n1,a\n");
        Path r = write(dir, "r.csv", "id,w\n1,a\n");
        Thread.currentThread().interrupt();
        int code;
        try {
            code = join(l, r, "--on", "id");
        } finally {
            Thread.interrupted();
        }
        assertThat(code).isEqualTo(ExitCodes.INTERRUPTED);
        assertThat(err).startsWith("spilljoin: interrupted");
        assertNoOutputLeft();
    }

    @Test
    void aMissingOutputDirectoryIsAResourceErrorBeforeAnythingIsRead() {
        Path l = write(dir, "l.csv", "id\n1\n");
        assertThat(run("join", "--left", l.toString(), "--right", dir.resolve("missing.csv").toString(), "--on",
                "id", "--output", dir.resolve("no/such/out.csv").toString())).isEqualTo(ExitCodes.RESOURCES);
        assertThat(err).isEqualTo("spilljoin: --output " + dir.resolve("no/such/out.csv") + ": the directory "
                + dir.resolve("no/such") + " does not exist; create it or write elsewhere\n");
        assertThat(dir.resolve("no")).doesNotExist();
    }
}
