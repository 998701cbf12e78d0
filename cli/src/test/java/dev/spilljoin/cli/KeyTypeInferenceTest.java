package dev.spilljoin.cli;

import static dev.spilljoin.cli.CsvTestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spilljoin.operator.data.ColumnType;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyTypeInferenceTest {
    @TempDir
    Path dir;

    private ColumnType[] infer(String csv) {
        Path file = write(dir, "f.csv", csv);
        try (CsvReader reader = new CsvReader(file, CsvFormat.DEFAULT, OnError.FAIL)) {
            int[] columns = new int[reader.columnCount()];
            for (int c = 0; c < columns.length; c++) {
                columns[c] = c;
            }
            return KeyTypeInference.infer(reader, columns);
        }
    }

    @Test
    void eachRuleInOrder() {
        ColumnType[] types = infer("big,dbl,mix,bool,text,zip,none,huge\n"
                + "1,1.5,1,true,a,007,,1\n"
                + "-20,NaN,2.5,FALSE,1,01,\"\",99999999999999999999\n"
                + "0,-Infinity,3e2,True,true,7,,2\n");
        assertThat(types).containsExactly(ColumnType.BIGINT, ColumnType.DOUBLE, ColumnType.DOUBLE,
                ColumnType.BOOLEAN, ColumnType.VARCHAR, ColumnType.VARCHAR, null, ColumnType.DOUBLE);
    }

    @Test
    void nullsAndEmptyStringsAreIgnored() {
        assertThat(infer("a,b\n,\"\"\n5,\n\"\",x\n")).containsExactly(ColumnType.BIGINT, ColumnType.VARCHAR);
    }

    @Test
    void onlyTheFirstTenThousandRowsDecide() {
        StringBuilder csv = new StringBuilder("k\n");
        for (int i = 0; i < KeyTypeInference.SAMPLE_ROWS; i++) {
            csv.append(i).append('\n');
        }
        csv.append("not a number\n");
        assertThat(infer(csv.toString())).containsExactly(ColumnType.BIGINT);
        csv.insert(2, "x\n");
        assertThat(infer(csv.toString())).containsExactly(ColumnType.VARCHAR);
    }

    @Test
    void pairingRules() {
        KeyTypeInference.Mismatch fail = () -> new UsageException("mismatch");
        assertThat(KeyTypeInference.compareType(null, null, fail)).isEqualTo(ColumnType.VARCHAR);
        assertThat(KeyTypeInference.compareType(null, ColumnType.BOOLEAN, fail)).isEqualTo(ColumnType.BOOLEAN);
        assertThat(KeyTypeInference.compareType(ColumnType.DOUBLE, null, fail)).isEqualTo(ColumnType.DOUBLE);
        assertThat(KeyTypeInference.compareType(ColumnType.BIGINT, ColumnType.DOUBLE, fail))
                .isEqualTo(ColumnType.DOUBLE);
        assertThat(KeyTypeInference.compareType(ColumnType.DOUBLE, ColumnType.INTEGER, fail))
                .isEqualTo(ColumnType.DOUBLE);
        assertThat(KeyTypeInference.compareType(ColumnType.INTEGER, ColumnType.BIGINT, fail))
                .isEqualTo(ColumnType.BIGINT);
        assertThat(KeyTypeInference.compareType(ColumnType.VARCHAR, ColumnType.VARCHAR, fail))
                .isEqualTo(ColumnType.VARCHAR);
        assertThat(KeyTypeInference.compareType(ColumnType.VARCHAR, ColumnType.VARBINARY, fail))
                .isEqualTo(ColumnType.VARBINARY);
        for (ColumnType[] pair : new ColumnType[][] {
            {ColumnType.BIGINT, ColumnType.VARCHAR}, {ColumnType.BOOLEAN, ColumnType.BIGINT},
            {ColumnType.DOUBLE, ColumnType.BOOLEAN}, {ColumnType.VARCHAR, ColumnType.DOUBLE}}) {
            assertThatThrownBy(() -> KeyTypeInference.compareType(pair[0], pair[1], fail))
                    .isInstanceOf(UsageException.class).hasMessage("mismatch");
        }
    }
}
