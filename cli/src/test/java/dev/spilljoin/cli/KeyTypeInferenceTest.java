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

    private static final KeyType BIGINT = KeyType.of(ColumnType.BIGINT);
    private static final KeyType INTEGER = KeyType.of(ColumnType.INTEGER);
    private static final KeyType DOUBLE = KeyType.of(ColumnType.DOUBLE);
    private static final KeyType BOOLEAN = KeyType.of(ColumnType.BOOLEAN);
    private static final KeyType VARCHAR = KeyType.of(ColumnType.VARCHAR);
    private static final KeyType VARBINARY = KeyType.of(ColumnType.VARBINARY);
    private static final KeyType WIDE = KeyType.WIDE_INTEGER;
    private static final KeyType INTEGER_TEXT = new KeyType(ColumnType.VARCHAR, NumberText.BIGINT_RANGE);
    private static final KeyType DECIMAL_TEXT = new KeyType(ColumnType.VARCHAR, NumberText.DECIMAL);

    private KeyType[] infer(String csv) {
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
        KeyType[] types = infer("big,dbl,mix,bool,text,zip,none,huge,hugemix\n"
                + "1,1.5,1,true,a,007,,1,1\n"
                + "-20,NaN,2.5,FALSE,1,01,\"\",99999999999999999999,99999999999999999999\n"
                + "0,-Infinity,3e2,True,true,7,,-9223372036854775809,2.5\n");
        assertThat(types).containsExactly(BIGINT, DOUBLE, DOUBLE, BOOLEAN, VARCHAR, VARCHAR, null, WIDE, DOUBLE);
    }

    @Test
    void nullsAndEmptyStringsAreIgnored() {
        assertThat(infer("a,b\n,\"\"\n5,\n\"\",x\n")).containsExactly(BIGINT, VARCHAR);
    }

    @Test
    void onlyTheFirstTenThousandRowsDecide() {
        StringBuilder csv = new StringBuilder("k\n");
        for (int i = 0; i < KeyTypeInference.SAMPLE_ROWS; i++) {
            csv.append(i).append('\n');
        }
        csv.append("not a number\n");
        assertThat(infer(csv.toString())).containsExactly(BIGINT);
        csv.insert(2, "x\n");
        assertThat(infer(csv.toString())).containsExactly(VARCHAR);
    }

    private static KeyTypeInference.PairType pair(KeyType left, KeyType right) {
        return KeyTypeInference.compareType(left, right, () -> new UsageException("mismatch"));
    }

    private static KeyTypeInference.PairType both(KeyType type) {
        return new KeyTypeInference.PairType(type, type);
    }

    @Test
    void pairingRules() {
        assertThat(pair(null, null)).isEqualTo(both(VARCHAR));
        assertThat(pair(null, BOOLEAN)).isEqualTo(both(BOOLEAN));
        assertThat(pair(DOUBLE, null)).isEqualTo(both(DOUBLE));
        assertThat(pair(INTEGER, BIGINT)).as("each side read as its own, compared as BIGINT")
                .isEqualTo(new KeyTypeInference.PairType(INTEGER, BIGINT));
        assertThat(pair(INTEGER, BIGINT).type()).isEqualTo(ColumnType.BIGINT);
        assertThat(pair(BIGINT, INTEGER).type()).isEqualTo(ColumnType.BIGINT);
        assertThat(pair(VARCHAR, VARCHAR)).isEqualTo(both(VARCHAR));
        assertThat(pair(VARCHAR, VARBINARY)).isEqualTo(both(VARBINARY));
        for (KeyType[] mismatch : new KeyType[][] {
            {BIGINT, VARCHAR}, {BOOLEAN, BIGINT}, {DOUBLE, BOOLEAN}, {VARCHAR, DOUBLE}, {WIDE, VARCHAR},
            {VARBINARY, WIDE}}) {
            assertThatThrownBy(() -> pair(mismatch[0], mismatch[1]))
                    .isInstanceOf(UsageException.class).hasMessage("mismatch");
        }
    }

    @Test
    void integersBeyondBigintPairExactlyOrNotAtAll() {
        assertThat(pair(WIDE, null)).isEqualTo(both(WIDE));
        assertThat(pair(WIDE, BIGINT)).as("a BIGINT partner compares as the same exact text").isEqualTo(both(WIDE));
        assertThat(pair(INTEGER, WIDE)).isEqualTo(both(WIDE));
        assertThat(WIDE.type()).isEqualTo(ColumnType.VARCHAR);
        for (KeyType[] refused : new KeyType[][] {{WIDE, DOUBLE}, {DOUBLE, WIDE}}) {
            assertThatThrownBy(() -> pair(refused[0], refused[1])).hasMessage("mismatch");
        }
    }

    @Test
    void integersWithDoublesCompareAsExactDecimalText() {
        assertThat(pair(BIGINT, DOUBLE)).isEqualTo(new KeyTypeInference.PairType(INTEGER_TEXT, DECIMAL_TEXT));
        assertThat(pair(DOUBLE, INTEGER)).isEqualTo(new KeyTypeInference.PairType(DECIMAL_TEXT, INTEGER_TEXT));
        assertThat(pair(DOUBLE, BIGINT).type()).isEqualTo(ColumnType.VARCHAR);
    }
}
