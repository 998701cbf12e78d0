package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ColumnChunkReader} on INT64 columns written by parquet-java in data pages V1 and V2: a REQUIRED column, an
 * OPTIONAL one without NULLs and one whose NULLs fall in some pages only, PLAIN and dictionary-encoded, read back in
 * runs of random lengths that cross the pages: every value and every NULL as written.
 */
class ColumnChunkReaderLongsTest {
    private static final int ROWS = 50_000;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(WriterVersion.class)
    void int64PagesReadBackAsWrittenInRunsAcrossPages(WriterVersion version) throws Exception {
        SplittableRandom random = SeededRandom.create("int64PagesReadBackAsWrittenInRunsAcrossPages " + version);
        MessageType schema = Types.buildMessage()
                .required(PrimitiveTypeName.INT64).named("required")
                .optional(PrimitiveTypeName.INT64).named("dense")
                .optional(PrimitiveTypeName.INT64).named("holes")
                .named("longs");
        Long[][] expected = new Long[ROWS][3];
        for (int i = 0; i < ROWS; i++) {
            long value = random.nextLong();
            expected[i][0] = value;
            expected[i][1] = value ^ i;
            // NULLs in the rows of one stretch only, so that the pages before and after it have none
            expected[i][2] = i >= 22_000 && i < 26_000 && random.nextInt(3) == 0 ? null : value + i;
        }
        for (boolean dictionary : new boolean[] {false, true}) {
            Path file = ParquetTestFiles.writeWithParquetJava(dir.resolve(version + "-" + dictionary + ".parquet"),
                    schema, dictionary, version, (Object[][]) expected);
            try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file),
                    ParquetInput.readOptions())) {
                String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
                if (!dictionary) {
                    assertThat(reader.getFooter().getBlocks().get(0).getColumns().get(1).getEncodings())
                            .as("the pages' encodings").contains(Encoding.PLAIN);
                }
                List<ColumnDescriptor> columns = schema.getColumns();
                PageReadStore group = reader.readNextRowGroup();
                assertThat(group.getRowCount()).isEqualTo(ROWS);
                for (int c = 0; c < columns.size(); c++) {
                    ColumnChunkReader chunk = new ColumnChunkReader(columns.get(c),
                            group.getPageReader(columns.get(c)), createdBy);
                    List<Long> read = new ArrayList<>();
                    ColumnVector vector = new ColumnVector(ColumnType.BIGINT, 7000);
                    for (int row = 0; row < ROWS; ) {
                        int n = Math.min(ROWS - row, 1 + random.nextInt(7000));
                        vector.reset(n);
                        chunk.read(vector, 0, n);
                        for (int r = 0; r < n; r++) {
                            read.add(vector.isNull(r) ? null : vector.getLong(r));
                        }
                        row += n;
                    }
                    for (int i = 0; i < ROWS; i++) {
                        assertThat(read.get(i)).as("%s, dictionary %s, column %s, row %d", version, dictionary,
                                columns.get(c).getPath()[0], i).isEqualTo(expected[i][c]);
                    }
                }
            }
        }
    }
}
