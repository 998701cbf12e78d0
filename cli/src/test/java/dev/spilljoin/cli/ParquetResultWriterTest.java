package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.PrimitiveType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Parquet writer's encodings across row groups: a column of distinct values falls back to plain in its first
 * row group and is not tried with a dictionary again, while a column of few values keeps its dictionary in every
 * row group (the choice is per column); the footer's counts, NULL counts and minimum and maximum are the ones
 * written.
 */
class ParquetResultWriterTest {
    @TempDir
    Path dir;

    @Test
    void aColumnThatFellBackIsWrittenPlainWhileOthersKeepTheirDictionary() throws Exception {
        int rows = 5_000_000;
        int batchRows = 4096;
        Schema schema = new Schema(List.of(Column.of("id", ColumnType.BIGINT), Column.of("tag", ColumnType.BIGINT)));
        Batch batch = new Batch(schema, batchRows);
        Path file = dir.resolve("out.parquet");
        ParquetResultWriter writer;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            writer = new ParquetResultWriter(out, new String[] {"id", "tag"},
                    new ColumnType[] {ColumnType.BIGINT, ColumnType.BIGINT}, new PrimitiveType[2],
                    CompressionCodecName.UNCOMPRESSED);
            for (int from = 0; from < rows; from += batchRows) {
                int n = Math.min(batchRows, rows - from);
                batch.reset();
                for (int r = 0; r < n; r++) {
                    long i = from + r;
                    batch.column(0).setLong(r, i * 7919);
                    if (i % 1000 == 0) {
                        batch.column(1).setNull(r);
                    } else {
                        batch.column(1).setLong(r, i % 10);
                    }
                }
                batch.setRowCount(n);
                writer.write(batch);
            }
            writer.finish();
        }
        assertThat(writer.triesDictionary(0)).as("the distinct column tries no dictionary any more").isFalse();
        assertThat(writer.triesDictionary(1)).as("the column of ten values still does").isTrue();
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), ParquetInput.readOptions())) {
            List<BlockMetaData> groups = reader.getFooter().getBlocks();
            assertThat(groups).as("row groups").hasSizeGreaterThan(2);
            long total = 0;
            long nulls = 0;
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (BlockMetaData group : groups) {
                ColumnChunkMetaData id = group.getColumns().get(0);
                ColumnChunkMetaData tag = group.getColumns().get(1);
                assertThat(id.getEncodings()).as("id").doesNotContain(Encoding.PLAIN_DICTIONARY,
                        Encoding.RLE_DICTIONARY).contains(Encoding.PLAIN);
                assertThat(tag.getEncodings()).as("tag").containsAnyOf(Encoding.PLAIN_DICTIONARY,
                        Encoding.RLE_DICTIONARY);
                nulls += tag.getStatistics().getNumNulls();
                min = Math.min(min, (Long) id.getStatistics().genericGetMin());
                max = Math.max(max, (Long) id.getStatistics().genericGetMax());
                total += group.getRowCount();
            }
            assertThat(total).isEqualTo(rows);
            assertThat(nulls).isEqualTo(rows / 1000);
            assertThat(min).isZero();
            assertThat(max).isEqualTo((rows - 1) * 7919L);
        }
    }
}
