package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.data.ColumnType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvWriterTest {
    @TempDir
    Path dir;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void text(CsvWriter writer, String value) throws IOException {
        if (value == null) {
            writer.writeNull();
        } else {
            byte[] b = utf8("<" + value + ">");
            writer.writeText(b, 1, b.length - 2);
        }
    }

    @Test
    void quotesOnlyWhenNeededAndSpellsNullAndEmpty() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CsvWriter writer = new CsvWriter(out, (byte) ',');
        writer.writeHeader(new String[] {"id", "a,b", "q"});
        for (String value : new String[] {"plain", null, "", "x,y", "say \"hi\"", "two\nlines", "cr\r", "ünï 🙂"}) {
            text(writer, value);
        }
        writer.endRow();
        writer.flush();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(
                "id,\"a,b\",q\nplain,,\"\",\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\",ünï 🙂\n");
        assertThat(writer.rowsWritten()).isEqualTo(1);
    }

    @Test
    void writesEveryLongAsLongToStringDoes() throws IOException {
        List<Long> values = new ArrayList<>();
        for (long p = 1; p > 0; p *= 10) { // up to 10^18; the next step overflows
            values.addAll(List.of(p - 1, p, p + 1, -p, -(p - 1), 2 * p - 1));
        }
        SplittableRandom random = SeededRandom.create("CsvWriterTest longs");
        for (int i = 0; i < 2000; i++) {
            values.add(random.nextLong() >> random.nextInt(64));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CsvWriter writer = new CsvWriter(out, (byte) ',', 64);
        StringBuilder expected = new StringBuilder();
        for (long v : values) {
            writer.writeLong(v);
            writer.endRow();
            expected.append(v).append('\n');
        }
        writer.flush();
        assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo(expected.toString());
    }

    @Test
    void rendersNumbersAndBooleans() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CsvWriter writer = new CsvWriter(out, (byte) ';');
        writer.writeLong(0);
        writer.writeLong(-123);
        writer.writeLong(Long.MIN_VALUE);
        writer.writeLong(Long.MAX_VALUE);
        writer.writeDouble(42);
        writer.writeDouble(-0.0);
        writer.writeDouble(0.1);
        writer.writeDouble(1e20);
        writer.writeDouble(Double.NaN);
        writer.writeDouble(Double.POSITIVE_INFINITY);
        writer.writeDouble(Double.NEGATIVE_INFINITY);
        writer.writeBoolean(true);
        writer.writeBoolean(false);
        writer.endRow();
        writer.flush();
        assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo(
                "0;-123;-9223372036854775808;9223372036854775807;42.0;-0.0;0.1;1.0E20;NaN;Infinity;-Infinity;"
                        + "true;false\n");
    }

    @Test
    void doublesRoundTripThroughTheReader() throws IOException {
        SplittableRandom random = SeededRandom.create("CsvWriterTest");
        double[] values = new double[5_000];
        for (int i = 0; i < values.length; i++) {
            values[i] = switch (i % 4) {
                case 0 -> Double.longBitsToDouble(random.nextLong());
                case 1 -> (double) random.nextLong(-(1L << 53), 1L << 53);
                case 2 -> random.nextInt(-1_000_000, 1_000_000) / 100.0;
                default -> random.nextDouble() * Math.pow(10, random.nextInt(-300, 300));
            };
        }
        values[0] = Double.NaN;
        values[1] = Double.NEGATIVE_INFINITY;
        values[2] = -0.0;
        values[3] = Double.MIN_VALUE;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CsvWriter writer = new CsvWriter(out, (byte) ',', 100);
        writer.writeHeader(new String[] {"d"});
        for (double value : values) {
            writer.writeDouble(value);
            writer.endRow();
        }
        writer.flush();
        Path file = CsvTestFiles.writeBytes(dir, "d.csv", out.toByteArray());
        try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.FAIL,
                new ColumnType[] {ColumnType.DOUBLE}, 4096)) {
            CsvChunk chunk = reader.newChunk(values.length);
            assertThat(reader.read(chunk)).isTrue();
            assertThat(chunk.rows()).isEqualTo(values.length);
            for (int i = 0; i < values.length; i++) {
                assertThat(Double.doubleToLongBits(chunk.doubles(0)[i])).as(chunk.text(0, i))
                        .isEqualTo(Double.doubleToLongBits(values[i]));
            }
        }
    }

    @Test
    void writeThenReadBackGivesTheSameFieldsIncludingNullAndEmpty() throws IOException {
        SplittableRandom random = SeededRandom.create("CsvWriterTest round trip");
        String alphabet = "ab,\"\r\n ;é日🙂";
        List<List<String>> rows = new ArrayList<>();
        for (int r = 0; r < 2_000; r++) {
            String[] row = new String[3];
            for (int c = 0; c < row.length; c++) {
                int kind = random.nextInt(6);
                if (kind == 0) {
                    row[c] = null;
                } else if (kind == 1) {
                    row[c] = "";
                } else {
                    StringBuilder value = new StringBuilder();
                    int length = random.nextInt(1, 12);
                    for (int i = 0; i < length; i++) {
                        value.appendCodePoint(alphabet.codePointAt(alphabet.offsetByCodePoints(0,
                                random.nextInt(alphabet.codePointCount(0, alphabet.length())))));
                    }
                    row[c] = value.toString();
                }
            }
            rows.add(Arrays.asList(row));
        }
        for (byte delimiter : new byte[] {',', ';', '\t'}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            CsvWriter writer = new CsvWriter(out, delimiter, 256);
            writer.writeHeader(new String[] {"a", "b c", "x\"y"});
            for (List<String> row : rows) {
                for (String value : row) {
                    text(writer, value);
                }
                writer.endRow();
            }
            writer.flush();
            Path file = CsvTestFiles.writeBytes(dir, "rt" + delimiter + ".csv", out.toByteArray());
            CsvFormat format = new CsvFormat(delimiter, true);
            try (CsvReader reader = new CsvReader(file, format, OnError.FAIL, null, 512)) {
                assertThat(reader.columnNames()).containsExactly("a", "b c", "x\"y");
                assertThat(CsvTestFiles.rows(reader, 97)).isEqualTo(rows);
            }
        }
    }

    /** Fields formatted straight into the buffer: across buffer refills, quoted when they hold the delimiter. */
    @Test
    void asciiFieldsAreFormattedInTheBufferAndQuotedWhenTheyHoldTheDelimiter() throws IOException {
        byte[] text = "2024-01-05 12:34:56.123456789".getBytes(StandardCharsets.US_ASCII);
        for (byte delimiter : new byte[] {',', ' '}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            CsvWriter writer = new CsvWriter(out, delimiter, 64);
            StringBuilder expected = new StringBuilder();
            for (int r = 0; r < 20; r++) {
                for (int f = 0; f < 3; f++) {
                    int length = 1 + (r * 3 + f) % text.length;
                    int start = writer.startAsciiField(text.length);
                    System.arraycopy(text, 0, writer.buffer(), start, length);
                    writer.endAsciiField(start, start + length);
                    String field = new String(text, 0, length, StandardCharsets.US_ASCII);
                    expected.append(f == 0 ? "" : (char) delimiter)
                            .append(field.indexOf(delimiter) >= 0 ? '"' + field + '"' : field);
                }
                writer.endRow();
                expected.append('\n');
            }
            writer.flush();
            assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo(expected.toString());
        }
    }

    @Test
    void fieldsLargerThanTheBufferAreWrittenWhole() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CsvWriter writer = new CsvWriter(out, (byte) ',', 64);
        String big = "x".repeat(500);
        String quoted = "\"".repeat(100);
        text(writer, big);
        text(writer, quoted);
        writer.endRow();
        writer.flush();
        assertThat(out.toString(StandardCharsets.US_ASCII))
                .isEqualTo(big + ",\"" + "\"".repeat(200) + "\"\n");
    }

    /**
     * With {@code wholeRows}, each write to the stream is whole rows, once the buffer holds its size or more: rows of
     * every length (numbers, texts up to 40x the 64-byte buffer, quotes doubled, NULLs) give the same bytes as a
     * writer that drains whenever it is full, and a row longer than the buffer is written whole (the buffer grows for
     * it), the rows after it again in writes of about the buffer's size.
     */
    @Test
    void wholeRowsWritesOnlyWholeRowsAndTheSameBytes() throws IOException {
        SplittableRandom random = SeededRandom.create("CsvWriterTest whole rows");
        List<Integer> writes = new ArrayList<>();
        ByteArrayOutputStream whole = new ByteArrayOutputStream() {
            @Override
            public synchronized void write(byte[] b, int off, int len) {
                assertThat(b[off + len - 1]).as("a write ends with a row's end").isEqualTo((byte) '\n');
                writes.add(len);
                super.write(b, off, len);
            }
        };
        ByteArrayOutputStream drained = new ByteArrayOutputStream();
        CsvWriter wholeRows = new CsvWriter(whole, (byte) ',', 64, true);
        CsvWriter plain = new CsvWriter(drained, (byte) ',', 64);
        int longRow = 150;
        for (int row = 0; row < 300; row++) {
            long number = random.nextLong() >> random.nextInt(64);
            String value = row == longRow ? "\"x".repeat(1_300)
                    : random.nextInt(10) == 0 ? null : "t\"".repeat(random.nextInt(12));
            for (CsvWriter writer : List.of(wholeRows, plain)) {
                writer.writeLong(number);
                text(writer, value);
                writer.endRow();
            }
            if (row == longRow) {
                assertThat(writes.get(writes.size() - 1)).as("the long row went out with the rows before it")
                        .isGreaterThan(2_600);
            }
        }
        wholeRows.flush();
        plain.flush();
        assertThat(whole.toByteArray()).isEqualTo(drained.toByteArray());
        assertThat(writes.subList(writes.indexOf(writes.stream().filter(w -> w > 2_600).findFirst().orElseThrow()) + 1,
                writes.size() - 1)).as("writes after the long row").isNotEmpty().allMatch(w -> w >= 64 && w < 64 + 80);
    }

    /**
     * Text values of 0 to 20 bytes (a word at a time and the tail), with a byte that needs quoting (delimiter, quote,
     * CR, LF) at each position or none, lying at the start, the middle or the very end of their array, written into a
     * small buffer at every fill level: each comes out as a byte-at-a-time rendering of the same rules writes it.
     */
    @Test
    void shortTextIsQuotedAndCopiedAsByteAtATimeRulesSay() throws IOException {
        byte[] special = {',', '"', '\r', '\n', ';'};
        for (byte delimiter : new byte[] {',', ';'}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            CsvWriter writer = new CsvWriter(out, delimiter, 64);
            StringBuilder expected = new StringBuilder();
            for (int length = 0; length <= 20; length++) {
                for (int at = -1; at < length; at++) {
                    for (byte odd : special) {
                        byte[] value = new byte[length];
                        for (int i = 0; i < length; i++) {
                            value[i] = (byte) ('a' + (i * 7 + length) % 26);
                        }
                        if (at >= 0) {
                            value[at] = odd;
                        }
                        for (int place = 0; place < 3; place++) { // start, middle, end of its array
                            int before = place == 0 ? 0 : 5;
                            int after = place == 2 ? 0 : 5;
                            byte[] array = new byte[before + length + after];
                            Arrays.fill(array, (byte) '"');
                            System.arraycopy(value, 0, array, before, length);
                            writer.writeText(array, before, length);
                            writer.endRow();
                            expected.append(rendered(value, delimiter)).append('\n');
                        }
                        if (at < 0) {
                            break; // no odd byte: one value of this length is enough
                        }
                    }
                }
            }
            writer.flush();
            assertThat(out.toString(StandardCharsets.ISO_8859_1)).as("delimiter %c", (char) delimiter)
                    .isEqualTo(expected.toString());
        }
    }

    /** RFC 4180 quoting byte by byte: quoted when empty or holding the delimiter, a quote, CR or LF. */
    private static String rendered(byte[] value, byte delimiter) {
        boolean quote = value.length == 0;
        for (byte b : value) {
            quote |= b == delimiter || b == '"' || b == '\r' || b == '\n';
        }
        String text = new String(value, StandardCharsets.ISO_8859_1);
        return quote ? "\"" + text.replace("\"", "\"\"") + "\"" : text;
    }

    @Test
    void numbersAndBooleansHoldingTheDelimiterAreQuotedSoThatTheRowReadsBack() throws IOException {
        assertThat(renderings((byte) ',')).isEqualTo("-5,15,1.5,-0.0,NaN,true,false\n");
        assertThat(renderings((byte) '-')).isEqualTo("\"-5\"-15-1.5-\"-0.0\"-NaN-true-false\n");
        assertThat(renderings((byte) '1')).isEqualTo("-51\"15\"1\"1.5\"1-0.01NaN1true1false\n");
        assertThat(renderings((byte) '.')).isEqualTo("-5.15.\"1.5\".\"-0.0\".NaN.true.false\n");
        assertThat(renderings((byte) 't')).isEqualTo("-5t15t1.5t-0.0tNaNt\"true\"tfalse\n");
        assertThat(renderings((byte) 'a')).isEqualTo("-5a15a1.5a-0.0a\"NaN\"atruea\"false\"\n");
    }

    private static String renderings(byte delimiter) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CsvWriter writer = new CsvWriter(out, delimiter, 64); // a small buffer: fields across its drains too
        writer.writeLong(-5);
        writer.writeLong(15);
        writer.writeDouble(1.5);
        writer.writeDouble(-0.0);
        writer.writeDouble(Double.NaN);
        writer.writeBoolean(true);
        writer.writeBoolean(false);
        writer.endRow();
        writer.flush();
        return out.toString(StandardCharsets.US_ASCII);
    }
}
