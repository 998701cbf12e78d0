package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.apache.parquet.schema.PrimitiveType;
import org.junit.jupiter.api.Test;

/**
 * {@link BatchCsvWriter} writes a batch of integer and byte columns in one reserved stretch of its buffer
 * ({@link CsvWriter#reserveRows}) and any other field by field: either way the bytes are the ones {@link CsvWriter}'s
 * field methods write (the reference here), for NULLs, empty values, values that need quotes, every integer's
 * extremes, over many batches (so that the buffer is written out between them), with a delimiter numbers may hold
 * ({@code -}: field by field, negative numbers quoted) and for a batch larger than the buffer (field by field).
 */
class BatchCsvWriterTest {
    private static final Schema SCHEMA = Schema.of(Column.of("id", ColumnType.BIGINT),
            Column.of("small", ColumnType.INTEGER), Column.of("text", ColumnType.VARCHAR),
            Column.of("bytes", ColumnType.VARBINARY));
    private static final String[] TEXTS = {"plain", "", "with,comma", "a-dash", "quote\"inside", "new\nline",
        "cr\rhere", "ünïcødé ✓", "\"", "twelve bytes", "a longer value of more than sixteen bytes"};
    private static final long[] LONGS = {0, -1, 1, 9, 10, 99, 100, Long.MAX_VALUE, Long.MIN_VALUE, -999_999_999_999L,
        1_000_000_000_000_000_000L};

    @Test
    void reservedBatchesGiveTheFieldByFieldBytes() throws IOException {
        SplittableRandom random = SeededRandom.create("BatchCsvWriterTest reserved");
        assertSameBytesAsFieldByField((byte) ',', random, 150, 400);
        assertSameBytesAsFieldByField((byte) '\t', random, 100, 1_000);
    }

    @Test
    void aDelimiterNumbersHoldIsWrittenFieldByFieldWithQuotes() throws IOException {
        SplittableRandom random = SeededRandom.create("BatchCsvWriterTest dash");
        String csv = assertSameBytesAsFieldByField((byte) '-', random, 120, 300);
        assertThat(csv).contains("\"-1\"");
    }

    @Test
    void aBatchLargerThanTheBufferIsWrittenFieldByField() throws IOException {
        Batch batch = new Batch(SCHEMA, 2);
        byte[] large = "x,".repeat(400_000).getBytes(StandardCharsets.UTF_8); // 1.6 MB quoted, beyond 1 MB
        for (int row = 0; row < 2; row++) {
            batch.column(0).setLong(row, -row);
            batch.column(1).setInt(row, row);
            batch.column(2).setBytes(row, large, 0, large.length);
            batch.column(3).setNull(row);
        }
        batch.setRowCount(2);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BatchCsvWriter writer = BatchCsvWriter.open(out, CsvCompression.NONE, (byte) ',', header(),
                new PrimitiveType[4]);
        writer.write(batch);
        writer.finish();
        String value = "\"" + "x,".repeat(400_000) + "\"";
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("id,small,text,bytes\n0,0," + value + ",\n-1,1,"
                + value + ",\n");
    }

    /**
     * Writes {@code batches} random batches of {@code rows} rows with {@code delimiter} through a
     * {@link BatchCsvWriter} and through {@link CsvWriter}'s field methods; asserts the same bytes and returns them.
     */
    private static String assertSameBytesAsFieldByField(byte delimiter, SplittableRandom random, int batches, int rows)
            throws IOException {
        ByteArrayOutputStream actual = new ByteArrayOutputStream();
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        BatchCsvWriter writer = BatchCsvWriter.open(actual, CsvCompression.NONE, delimiter, header(),
                new PrimitiveType[4]);
        CsvWriter reference = new CsvWriter(expected, delimiter);
        reference.writeHeader(header());
        Batch batch = new Batch(SCHEMA, rows);
        for (int b = 0; b < batches; b++) {
            batch.reset();
            for (int row = 0; row < rows; row++) {
                fillRow(batch, row, random, reference);
            }
            batch.setRowCount(rows);
            writer.write(batch);
        }
        writer.finish();
        reference.flush();
        assertThat(actual.size()).as("written out between batches").isGreaterThan(CsvWriter.DEFAULT_BUFFER_BYTES);
        assertThat(writer.rowsWritten()).isEqualTo((long) batches * rows);
        String csv = actual.toString(StandardCharsets.UTF_8);
        assertSameText(csv, expected.toString(StandardCharsets.UTF_8));
        return csv;
    }

    /** Asserts {@code actual} equals {@code expected}, showing the two around their first difference (not whole). */
    private static void assertSameText(String actual, String expected) {
        int at = 0;
        while (at < Math.min(actual.length(), expected.length()) && actual.charAt(at) == expected.charAt(at)) {
            at++;
        }
        int from = Math.max(0, at - 100);
        assertThat(actual.substring(from, Math.min(actual.length(), at + 100)))
                .as("from character %d of %d", from, expected.length())
                .isEqualTo(expected.substring(from, Math.min(expected.length(), at + 100)));
        assertThat(actual.length()).isEqualTo(expected.length());
    }

    /** Sets row {@code row} of {@code batch} at random (1 in 8 values NULL) and writes it to {@code reference}. */
    private static void fillRow(Batch batch, int row, SplittableRandom random, CsvWriter reference)
            throws IOException {
        for (int c = 0; c < SCHEMA.size(); c++) {
            ColumnVector v = batch.column(c);
            if (random.nextInt(8) == 0) {
                v.setNull(row);
                reference.writeNull();
                continue;
            }
            switch (v.type()) {
                case BIGINT -> {
                    long value = random.nextBoolean() ? LONGS[random.nextInt(LONGS.length)]
                            : random.nextLong() >> random.nextInt(64);
                    v.setLong(row, value);
                    reference.writeLong(value);
                }
                case INTEGER -> {
                    int value = random.nextBoolean() ? random.nextInt() : random.nextInt(-100, 100);
                    v.setInt(row, value);
                    reference.writeLong(value);
                }
                default -> {
                    byte[] value = TEXTS[random.nextInt(TEXTS.length)].getBytes(StandardCharsets.UTF_8);
                    v.setBytes(row, value, 0, value.length);
                    reference.writeText(value, 0, value.length);
                }
            }
        }
        reference.endRow();
    }

    private static String[] header() {
        return new String[] {"id", "small", "text", "bytes"};
    }
}
