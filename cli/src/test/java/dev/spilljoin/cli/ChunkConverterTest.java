package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.ColumnVector;
import dev.spilljoin.operator.data.Schema;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChunkConverterTest {
    @TempDir
    Path dir;

    @Test
    void typedKeysTextNullsAndEmptyStringsCarryOverAcrossReusedChunksAndBatches() {
        Path file = CsvTestFiles.write(dir, "a.csv", "id,x,name,name\n1,1.5,,a\n,NaN,\"\",b\n3,,é,\n4,2,\"q,\"\"\",d\n");
        InputSide side = new InputSide("left", file, CsvFormat.DEFAULT, OnError.FAIL,
                new String[] {"id", "x", "name", "name"}, new int[] {0, 1},
                KeyReading.of(new ColumnType[] {ColumnType.BIGINT, ColumnType.DOUBLE, null, null}), null, null);
        Schema schema = ChunkConverter.schemaOf(side);
        assertThat(schema.toString()).isEqualTo("(id BIGINT, x DOUBLE, name VARCHAR, name#2 VARCHAR)");
        Batch batch = new Batch(schema, 1);
        try (CsvReader reader = side.openReader()) {
            CsvChunk chunk = reader.newChunk(3);
            assertThat(reader.read(chunk)).isTrue();
            ChunkConverter.copy(chunk, batch);
            assertThat(batch.rowCount()).isEqualTo(3);
            ColumnVector id = batch.column(0);
            assertThat(id.getLong(0)).isEqualTo(1);
            assertThat(id.isNull(1)).isTrue();
            assertThat(id.getLong(2)).isEqualTo(3);
            assertThat(batch.column(1).getDouble(1)).isNaN();
            assertThat(batch.column(1).isNull(2)).isTrue();
            ColumnVector name = batch.column(2);
            assertThat(name.isNull(0)).isTrue();
            assertThat(name.isNull(1)).isFalse();
            assertThat(name.byteLength(1)).isZero();
            assertThat(name.getString(2)).isEqualTo("é");
            assertThat(batch.column(3).isNull(2)).isTrue();

            // The second chunk has one row; the stale NULL bits of rows 1 and 2 must not reach the batch.
            assertThat(reader.read(chunk)).isTrue();
            ChunkConverter.copy(chunk, batch);
            assertThat(batch.rowCount()).isEqualTo(1);
            for (int c = 0; c < 4; c++) {
                assertThat(batch.column(c).mayHaveNulls()).as("column %d", c).isFalse();
            }
            assertThat(batch.column(0).getLong(0)).isEqualTo(4);
            assertThat(batch.column(1).getDouble(0)).isEqualTo(2.0);
            assertThat(batch.column(2).getString(0)).isEqualTo("q,\"");
            assertThat(batch.column(3).getString(0)).isEqualTo("d");
            assertThat(reader.read(chunk)).isFalse();
        }
    }
}
