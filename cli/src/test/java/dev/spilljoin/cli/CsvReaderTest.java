package dev.spilljoin.cli;

import static dev.spilljoin.cli.CsvTestFiles.readAll;
import static dev.spilljoin.cli.CsvTestFiles.row;
import static dev.spilljoin.cli.CsvTestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spilljoin.operator.data.ColumnType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvReaderTest {
    @TempDir
    Path dir;

    @Test
    void readsHeaderAndPlainFields() {
        Path file = write(dir, "a.csv", "id,name\n1,ann\n2,bob\n");
        try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.FAIL)) {
            assertThat(reader.columnNames()).containsExactly("id", "name");
            assertThat(CsvTestFiles.rows(reader, 10)).containsExactly(row("1", "ann"), row("2", "bob"));
            assertThat(reader.rowsRead()).isEqualTo(2);
        }
    }

    @Test
    void quotedFieldsHoldDelimitersQuotesAndNewlines() {
        Path file = write(dir, "q.csv", "a,b\n\"x,y\",\"say \"\"hi\"\"\"\n\"line1\nline2\",\"cr\r\nlf\"\n");
        assertThat(readAll(file, CsvFormat.DEFAULT)).containsExactly(
                row("x,y", "say \"hi\""),
                row("line1\nline2", "cr\r\nlf"));
    }

    @Test
    void unquotedEmptyIsNullAndQuotedEmptyIsEmptyString() {
        Path file = write(dir, "n.csv", "a,b,c\n,\"\",x\n\"\",,\n");
        assertThat(readAll(file, CsvFormat.DEFAULT)).containsExactly(
                row(null, "", "x"),
                row("", null, null));
    }

    @Test
    void acceptsCrLfAndCrAndMixedLineEndsAndNoFinalNewline() {
        Path file = write(dir, "e.csv", "a,b\r\n1,2\r3,4\n5,6\r\n7,8");
        assertThat(readAll(file, CsvFormat.DEFAULT))
                .containsExactly(row("1", "2"), row("3", "4"), row("5", "6"), row("7", "8"));
    }

    @Test
    void skipsUtf8ByteOrderMarkAndPassesUtf8Through() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.writeBytes(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
        bytes.writeBytes("naïve,名前\n\"zoë, 🙂\",日本\n".getBytes(StandardCharsets.UTF_8));
        Path file = CsvTestFiles.writeBytes(dir, "u.csv", bytes.toByteArray());
        try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.FAIL)) {
            assertThat(reader.columnNames()).containsExactly("naïve", "名前");
            assertThat(CsvTestFiles.rows(reader, 4)).containsExactly(row("zoë, 🙂", "日本"));
        }
    }

    @Test
    void noHeaderNamesColumnsAndKeepsFirstRecordAsData() {
        Path file = write(dir, "h.csv", "\uFEFF1,a\n2,b\n");
        try (CsvReader reader = new CsvReader(file, new CsvFormat((byte) ',', false), OnError.FAIL)) {
            assertThat(reader.columnNames()).containsExactly("column1", "column2");
            assertThat(CsvTestFiles.rows(reader, 1)).containsExactly(row("1", "a"), row("2", "b"));
        }
    }

    @Test
    void otherDelimiterAndQuotedCommaStaysPlain() {
        Path file = write(dir, "t.csv", "a;b\n1,5;\"x;y\"\n");
        assertThat(readAll(file, new CsvFormat((byte) ';', true))).containsExactly(row("1,5", "x;y"));
    }

    @Test
    void blankLinesAreSkippedWithSeveralColumnsAndNullWithOne() {
        Path several = write(dir, "s.csv", "a,b\n1,2\n\n3,4\n\r\n");
        assertThat(readAll(several, CsvFormat.DEFAULT)).containsExactly(row("1", "2"), row("3", "4"));
        Path one = write(dir, "o.csv", "a\n1\n\n\"\"\n2\n");
        assertThat(readAll(one, CsvFormat.DEFAULT)).containsExactly(row("1"), row((String) null), row(""), row("2"));
    }

    /** Found by the it module's CliDifferentialFuzzTest: such a file was refused as empty. */
    @Test
    void withoutHeaderBlankLinesOnlyAreOneColumnOfNulls() {
        CsvFormat noHeader = new CsvFormat((byte) ',', false);
        Path blanks = write(dir, "b.csv", "\n\r\n\r");
        try (CsvReader reader = new CsvReader(blanks, noHeader, OnError.FAIL)) {
            assertThat(reader.columnNames()).containsExactly("column1");
            assertThat(CsvTestFiles.rows(reader, 8)).containsExactly(
                    row((String) null), row((String) null), row((String) null));
        }
        Path withHeader = write(dir, "h.csv", "\n\n");
        assertThatThrownBy(() -> new CsvReader(withHeader, CsvFormat.DEFAULT, OnError.FAIL))
                .isInstanceOf(InputException.class)
                .hasMessageStartingWith(withHeader + " holds only blank lines: expected a header line");
    }

    @Test
    void fieldsSpanningBufferRefillsAreIntact() {
        StringBuilder csv = new StringBuilder("k,v\n");
        for (int i = 0; i < 300; i++) {
            csv.append(i).append(",\"v").append(i).append(",\"\"q\"\"\nz\"\r\n");
        }
        Path file = write(dir, "big.csv", csv.toString());
        try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.FAIL, null, 16)) {
            List<List<String>> rows = CsvTestFiles.rows(reader, 7);
            assertThat(rows).hasSize(300);
            for (int i = 0; i < 300; i++) {
                assertThat(rows.get(i)).containsExactly(String.valueOf(i), "v" + i + ",\"q\"\nz");
            }
        }
    }

    /**
     * Unquoted fields of 0 to 20 bytes (the scan takes eight bytes at a time, then the tail), ended by the delimiter,
     * LF, CR or CRLF at every position in a word, holding bytes one bit away from those, in buffers of 16 to 64 bytes
     * and the default (fields across refills and at their ends): every field comes back as written.
     */
    @Test
    void unquotedFieldsOfEveryLengthEndWhereTheirDelimiterOrLineEndIs() {
        String near = "+-\u000b\u000c\u000e,;";   // neighbours of ',' and the line ends; ';' plain with ','
        List<List<String>> expected = new java.util.ArrayList<>();
        StringBuilder csv = new StringBuilder("a,b,c\n");
        String[] ends = {"\n", "\r", "\r\n"};
        for (int length = 0; length <= 20; length++) {
            for (int shift = 0; shift < 8; shift++) {
                String[] row = new String[3];
                for (int c = 0; c < 3; c++) {
                    StringBuilder field = new StringBuilder();
                    int n = c == 1 ? (length + shift) % 21 : length;
                    for (int i = 0; i < n; i++) {
                        char ch = near.charAt((i + shift + c) % near.length());
                        field.append(ch == ',' ? 'x' : ch);
                    }
                    row[c] = field.length() == 0 ? null : field.toString();
                    csv.append(field).append(c < 2 ? "," : ends[(length + shift) % 3]);
                }
                expected.add(Arrays.asList(row));
            }
        }
        Path file = write(dir, "lengths.csv", csv.toString());
        for (int buffer : new int[] {16, 17, 23, 64, CsvReader.DEFAULT_BUFFER_BYTES}) {
            try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.FAIL, null, buffer)) {
                assertThat(CsvTestFiles.rows(reader, 13)).as("buffer of %d bytes", buffer).isEqualTo(expected);
            }
        }
    }

    @Test
    void recordsRememberTheirPhysicalLine() {
        Path file = write(dir, "l.csv", "a,b\n1,\"x\ny\"\n2,z\r\n3,w\n");
        try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.FAIL)) {
            CsvChunk chunk = reader.newChunk(10);
            assertThat(reader.read(chunk)).isTrue();
            assertThat(chunk.rows()).isEqualTo(3);
            assertThat(chunk.lines()[0]).isEqualTo(2);
            assertThat(chunk.lines()[1]).isEqualTo(4);
            assertThat(chunk.lines()[2]).isEqualTo(5);
        }
    }

    @Test
    void wrongFieldCountNamesFileAndLine() {
        Path file = write(dir, "w.csv", "a,b\n1,2\n3\n");
        assertThatThrownBy(() -> readAll(file, CsvFormat.DEFAULT))
                .isInstanceOf(InputException.class)
                .hasMessageContaining(file + " line 3: found 1 field, expected 2")
                .hasMessageContaining("--on-error skip");
    }

    @Test
    void unclosedQuoteAtEndNamesLineAndColumn() {
        Path file = write(dir, "u.csv", "a,b\n1,2\n3,\"open\nmore\n");
        assertThatThrownBy(() -> readAll(file, CsvFormat.DEFAULT))
                .isInstanceOf(InputException.class)
                .hasMessageContaining(file + " line 3: the quote opened in column 2 ('b') on line 3 is never closed");
    }

    @Test
    void garbageAfterClosingQuoteNamesLineAndColumn() {
        Path file = write(dir, "g.csv", "a,b\n\"x\"y,2\n");
        assertThatThrownBy(() -> readAll(file, CsvFormat.DEFAULT))
                .isInstanceOf(InputException.class)
                .hasMessageContaining(file + " line 2: unexpected character after the closing quote in column 1 ('a')");
    }

    @Test
    void skipModeDropsAndCountsMalformedRowsAndKeepsTheRest() {
        Path file = write(dir, "s.csv", "a,b\n1,2\n3\n\"x\"y,2\n4,5,6\n7,8\n9,\"open\n");
        try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.SKIP)) {
            assertThat(CsvTestFiles.rows(reader, 2)).containsExactly(row("1", "2"), row("7", "8"));
            assertThat(reader.rowsSkipped()).isEqualTo(4);
            assertThat(reader.rowsRead()).isEqualTo(2);
        }
    }

    @Test
    void typedKeyColumnsAreParsedAndBadValuesNameLineAndColumn() {
        Path file = write(dir, "k.csv", "id,x,flag\n-5,\"7.5\",TRUE\n,1e3,false\n\"\",NaN,\n");
        ColumnType[] types = {ColumnType.BIGINT, ColumnType.DOUBLE, ColumnType.BOOLEAN};
        try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.FAIL, types, 64)) {
            CsvChunk chunk = reader.newChunk(8);
            assertThat(reader.read(chunk)).isTrue();
            assertThat(chunk.rows()).isEqualTo(3);
            assertThat(chunk.longs(0)[0]).isEqualTo(-5);
            assertThat(chunk.isNull(0, 1)).isTrue();
            assertThat(chunk.isNull(0, 2)).as("an empty string in a BIGINT key reads as NULL").isTrue();
            assertThat(chunk.doubles(1)).startsWith(7.5, 1000.0);
            assertThat(chunk.doubles(1)[2]).isNaN();
            assertThat(chunk.booleans(2)[0]).isTrue();
            assertThat(chunk.booleans(2)[1]).isFalse();
            assertThat(chunk.isNull(2, 2)).isTrue();
            assertThat(chunk.text(1, 0)).as("the text stays available").isEqualTo("7.5");
        }
        Path bad = write(dir, "bad.csv", "id,x\n1,a\n\n12x,b\n");
        ColumnType[] idBigint = {ColumnType.BIGINT, null};
        try (CsvReader reader = new CsvReader(bad, CsvFormat.DEFAULT, OnError.FAIL, idBigint, 64)) {
            assertThatThrownBy(() -> reader.read(reader.newChunk(8)))
                    .isInstanceOf(InputException.class)
                    .hasMessageContaining(bad + " line 4: value '12x' in column 1 ('id') is not a BIGINT")
                    .hasMessageContaining("'id:varchar'");
        }
        try (CsvReader reader = new CsvReader(bad, CsvFormat.DEFAULT, OnError.SKIP, idBigint, 64)) {
            assertThat(CsvTestFiles.rows(reader, 8)).containsExactly(row("1", "a"));
            assertThat(reader.rowsSkipped()).isEqualTo(1);
        }
    }

    @Test
    void numberTextKeysAreCheckedAndHeldAsTheirCanonicalText() {
        Path file = write(dir, "n.csv", "i,b,d,v\n-0,-0,1.0,x\n12345678901234567890,7,1.50,y\n\"\",,-0.0e5,z\n"
                + "5,-9223372036854775808,1e3,w\n");
        KeyReading keys = new KeyReading(
                new ColumnType[] {ColumnType.VARCHAR, ColumnType.VARCHAR, ColumnType.VARCHAR, null},
                new NumberText[] {NumberText.INTEGER, NumberText.BIGINT_RANGE, NumberText.DECIMAL, null},
                new org.apache.parquet.schema.PrimitiveType[4], new String[] {"HINT-I", "HINT-B", "HINT-D", null});
        try (CsvReader reader = CsvReader.open(file, CsvFormat.DEFAULT, OnError.FAIL, keys, 16)) {
            assertThat(CsvTestFiles.rows(reader, 3)).containsExactly(
                    row("0", "0", "1", "x"),
                    row("12345678901234567890", "7", "1.50", "y"),
                    row(null, null, "0", "z"),
                    row("5", "-9223372036854775808", "1000", "w"));
        }
        for (String[] bad : new String[][] {{"007,1,1,a", "'007' in column 1 ('i') is not an integer", "HINT-I"},
            {"1,9223372036854775808,1,a", "is not a BIGINT", "HINT-B"}, {"1,1,1.5x,a", "is not a DOUBLE", "HINT-D"}}) {
            Path badFile = write(dir, "bad.csv", "i,b,d,v\n" + bad[0] + "\n");
            try (CsvReader reader = CsvReader.open(badFile, CsvFormat.DEFAULT, OnError.FAIL, keys, 64)) {
                assertThatThrownBy(() -> reader.read(reader.newChunk(8))).isInstanceOf(InputException.class)
                                .hasMessageContaining(bad[1]).hasMessageContaining("fix the value, or " + bad[2]);
            }
        }
    }

    @Test
    void varcharKeysKeepEmptyStringsDistinctFromNull() {
        Path file = write(dir, "v.csv", "k\n\"\"\n\nab\n");
        try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.FAIL,
                new ColumnType[] {ColumnType.VARCHAR}, 64)) {
            assertThat(CsvTestFiles.rows(reader, 8)).containsExactly(row(""), row((String) null), row("ab"));
        }
    }

    @Test
    void missingFileAndEmptyFileAreInputErrors() {
        Path missing = dir.resolve("nope.csv");
        assertThatThrownBy(() -> new CsvReader(missing, CsvFormat.DEFAULT, OnError.FAIL))
                .isInstanceOf(InputException.class)
                .hasMessage(missing + " does not exist; check the path");
        Path empty = write(dir, "empty.csv", "");
        assertThatThrownBy(() -> new CsvReader(empty, CsvFormat.DEFAULT, OnError.FAIL))
                .isInstanceOf(InputException.class)
                .hasMessageContaining(empty + " is empty");
        assertThatThrownBy(() -> new CsvReader(dir, CsvFormat.DEFAULT, OnError.FAIL))
                .isInstanceOf(InputException.class)
                .hasMessageContaining(" is a directory, not a CSV file, and holds no Parquet part file (.parquet) of"
                        + " its own (subdirectories, such as Hive partitions key=value/, are not read)");
        Path device = Path.of("/dev/null");
        if (Files.exists(device)) { // a device is read as a stream (issue 17), here an empty one
            assertThatThrownBy(() -> new CsvReader(device, CsvFormat.DEFAULT, OnError.FAIL))
                    .isInstanceOf(InputException.class)
                    .hasMessageContaining(device + " is empty");
        }
    }

    @Test
    void quoteInsideUnquotedFieldIsLiteral() {
        Path file = write(dir, "l.csv", "a,b\n5\"3,x\"\n");
        assertThat(readAll(file, CsvFormat.DEFAULT)).containsExactly(row("5\"3", "x\""));
    }

    @Test
    void aRunawayQuotedFieldIsReadToTheEndWithoutBeingHeldAndReportedAsTheUnclosedQuote() throws IOException {
        Path file = dir.resolve("runaway.csv");
        byte[] block = new byte[1 << 20];
        Arrays.fill(block, (byte) 'x');
        try (OutputStream out = Files.newOutputStream(file)) {
            out.write("a,b\n1,2\n3,\"".getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < 8; i++) {
                out.write(block);
            }
        }
        try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.FAIL)) {
            CsvChunk chunk = new CsvChunk(new ColumnType[2], 16, 1 << 20);
            assertThatThrownBy(() -> reader.read(chunk))
                    .isInstanceOf(InputException.class)
                    .hasMessageStartingWith(file + " line 3: the quote opened in column 2 ('b') on line 3 is never"
                            + " closed");
            assertThat(chunk.bytes(1).length).as("the 8MB field is counted, not held").isLessThanOrEqualTo(2 << 20);
        }
    }

    @Test
    void aRowAboveTheRowLimitIsMeasuredToItsEndAndNamedWithItsLineColumnAndSize() throws IOException {
        byte[] big = new byte[3 << 20];
        Arrays.fill(big, (byte) 'y');
        Path file = dir.resolve("big.csv");
        try (OutputStream out = Files.newOutputStream(file)) {
            out.write("id,v,w\n1,a,b\n2,".getBytes(StandardCharsets.US_ASCII));
            out.write(big);
            out.write(",cc\n3,d,e\n".getBytes(StandardCharsets.US_ASCII));
        }
        try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.FAIL)) {
            CsvChunk chunk = new CsvChunk(new ColumnType[3], 16, 1 << 20);
            assertThatThrownBy(() -> reader.read(chunk))
                    .isInstanceOf(InputException.class)
                    .hasMessageStartingWith(file + " line 3: the row holds " + ((3 << 20) + 3) + " bytes (3.0MB;"
                            + " column 2 ('v') alone " + (3 << 20) + "), more than the largest row taken, 1MB (1/64 of"
                            + " the Java heap of ")
                    .hasMessageContaining("give the JVM a larger heap, e.g. SPILLJOIN_HEAP=256m with bin/spilljoin")
                    .hasMessageEndingWith("(or pass --on-error skip to skip and count such rows)");
        }
        try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.SKIP)) {
            CsvChunk chunk = new CsvChunk(new ColumnType[3], 16, 1 << 20);
            assertThat(reader.read(chunk)).isTrue();
            assertThat(List.of(chunk.text(0, 0), chunk.text(0, 1))).containsExactly("1", "3");
            assertThat(chunk.text(2, 1)).isEqualTo("e");
            assertThat(reader.rowsSkipped()).isEqualTo(1);
        }
    }

    @Test
    void chunksOfWideRowsHoldFewerRowsSoThatTheirArraysStayNearTheTarget() {
        StringBuilder header = new StringBuilder("c0");
        for (int c = 1; c < 10_000; c++) {
            header.append(",c").append(c);
        }
        Path file = write(dir, "wide.csv", header + "\n");
        try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.FAIL)) {
            assertThat(reader.columnCount()).isEqualTo(10_000);
            assertThat(reader.newChunk(4096).capacity()).isEqualTo(BatchSizing.TARGET_BYTES / (10_000 * 24));
        }
        try (CsvReader reader = new CsvReader(write(dir, "narrow.csv", "a,b\n"), CsvFormat.DEFAULT, OnError.FAIL)) {
            assertThat(reader.newChunk(4096).capacity()).isEqualTo(4096);
        }
    }
}
