package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.PrimitiveType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ColumnChunkReader} on byte values: a dictionary-encoded column (few distinct strings) and a plain-encoded one
 * (distinct strings), NULLs in both, read back in runs of 4,096 equal to what was written; and a dictionary-encoded
 * chunk decodes with no object per value (the bytes the decoding thread allocates per value, its pages and decoders
 * included, stay below the 48 of one buffer wrapper per value).
 */
class ColumnChunkReaderTest {
    private static final int ROWS = 300_000;
    private static final int RUN = 4096;

    @TempDir
    Path dir;
    private Path file;

    @BeforeEach
    void write() throws Exception {
        file = dir.resolve("strings.parquet");
        Schema schema = new Schema(List.of(Column.of("city", ColumnType.VARCHAR), Column.of("text",
                ColumnType.VARCHAR)));
        Batch batch = new Batch(schema, RUN);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            ParquetResultWriter writer = new ParquetResultWriter(out, new String[] {"city", "text"},
                    new ColumnType[] {ColumnType.VARCHAR, ColumnType.VARCHAR}, new PrimitiveType[2],
                    CompressionCodecName.SNAPPY);
            for (int from = 0; from < ROWS; from += RUN) {
                int n = Math.min(RUN, ROWS - from);
                batch.reset();
                for (int r = 0; r < n; r++) {
                    int i = from + r;
                    for (int c = 0; c < 2; c++) {
                        String value = expected(c, i);
                        if (value == null) {
                            batch.column(c).setNull(r);
                        } else {
                            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
                            batch.column(c).setBytes(r, bytes, 0, bytes.length);
                        }
                    }
                }
                batch.setRowCount(n);
                writer.write(batch);
            }
            writer.finish();
        }
    }

    /** Column {@code c}'s value in row {@code i}: NULL every 97th row, else a city of 40 or a distinct text. */
    private static String expected(int c, int i) {
        if (i % 97 == 5) {
            return null;
        }
        return c == 0 ? "city-" + (i * 7 % 40) + "-é" : "text-" + Long.toHexString(i * 0x9E3779B97F4A7C15L);
    }

    @Test
    void dictionaryAndPlainPagesReadBackAsWritten() throws Exception {
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), ParquetInput.readOptions())) {
            List<ColumnChunkMetaData> chunks = reader.getFooter().getBlocks().get(0).getColumns();
            assertThat(chunks.get(0).getEncodings()).as("the cities")
                    .containsAnyOf(Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY);
            assertThat(chunks.get(1).getEncodings()).as("the distinct texts").contains(Encoding.PLAIN)
                    .doesNotContain(Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY);
            String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
            List<ColumnDescriptor> descriptors = reader.getFileMetaData().getSchema().getColumns();
            ColumnVector vector = new ColumnVector(ColumnType.VARCHAR, RUN);
            int row = 0;
            for (PageReadStore group; (group = reader.readNextRowGroup()) != null; ) {
                ColumnChunkReader[] columns = new ColumnChunkReader[2];
                for (int c = 0; c < 2; c++) {
                    columns[c] = new ColumnChunkReader(descriptors.get(c), group.getPageReader(descriptors.get(c)),
                            createdBy);
                }
                for (long left = group.getRowCount(); left > 0; ) {
                    int n = (int) Math.min(RUN, left);
                    for (int c = 0; c < 2; c++) {
                        vector.reset(RUN);
                        columns[c].read(vector, 0, n);
                        for (int r = 0; r < n; r++) {
                            String value = vector.isNull(r) ? null : vector.getString(r);
                            assertThat(value).as("column %d row %d", c, row + r).isEqualTo(expected(c, row + r));
                        }
                    }
                    row += n;
                    left -= n;
                }
            }
            assertThat(row).isEqualTo(ROWS);
        }
    }

    @Test
    void aDictionaryEncodedChunkDecodesWithNoObjectPerValue() throws Exception {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), ParquetInput.readOptions())) {
            ColumnDescriptor city = reader.getFileMetaData().getSchema().getColumns().get(0);
            String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
            ColumnVector vector = new ColumnVector(ColumnType.VARCHAR, RUN);
            vector.reserveBytes(0, RUN * 16); // the vector's own growth is not the decoding's
            vector.reset(RUN);
            long values = 0;
            long allocated = 0;
            for (PageReadStore group; (group = reader.readNextRowGroup()) != null; ) {
                ColumnChunkReader column = new ColumnChunkReader(city, group.getPageReader(city), createdBy);
                for (long left = group.getRowCount(); left > 0; ) {
                    int n = (int) Math.min(RUN, left);
                    long before = threads.getCurrentThreadAllocatedBytes();
                    column.read(vector, 0, n);
                    allocated += threads.getCurrentThreadAllocatedBytes() - before;
                    vector.reset(RUN);
                    values += n;
                    left -= n;
                }
            }
            assertThat(values).isEqualTo(ROWS);
            // what remains is per page and per chunk: its dictionary, the page's level and id decoders
            assertThat((double) allocated / values).as("bytes allocated per value decoded").isLessThan(24);
        }
    }
}
