package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spilljoin.operator.data.ColumnType;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchemaTest {
    @Test
    void parsesNamesAndTypesInAnyCase() {
        Schema schema = Schema.parse(" id:BIGINT, n:int ,x:double,ok:Boolean,s:text,v:varchar,b:varbinary",
                "--schema-left");
        assertThat(List.copyOf(schema.types().keySet())).containsExactly("id", "n", "x", "ok", "s", "v", "b");
        assertThat(schema.typeOf("id")).isEqualTo(ColumnType.BIGINT);
        assertThat(schema.typeOf("n")).isEqualTo(ColumnType.INTEGER);
        assertThat(schema.typeOf("x")).isEqualTo(ColumnType.DOUBLE);
        assertThat(schema.typeOf("ok")).isEqualTo(ColumnType.BOOLEAN);
        assertThat(schema.typeOf("s")).isEqualTo(ColumnType.VARCHAR);
        assertThat(schema.typeOf("b")).isEqualTo(ColumnType.VARBINARY);
        assertThat(schema.typeOf("missing")).isNull();
    }

    @Test
    void columnNamesMayContainColons() {
        assertThat(Schema.parse("a:b:bigint", "--schema-left").typeOf("a:b")).isEqualTo(ColumnType.BIGINT);
    }

    @Test
    void absentSchemaIsEmpty() {
        assertThat(Schema.parse(null, "--schema-left").types()).isEmpty();
    }

    @Test
    void errorsSayWhatIsWrong() {
        assertThatThrownBy(() -> Schema.parse("id", "--schema-left"))
                .isInstanceOf(UsageException.class)
                .hasMessageStartingWith("--schema-left entry 'id' has no type: write it as name:type");
        assertThatThrownBy(() -> Schema.parse("id:number", "--schema-right"))
                .isInstanceOf(UsageException.class)
                .hasMessage("--schema-right gives column 'id' the unknown type 'number'; use one of "
                        + Schema.TYPE_SPELLINGS);
        assertThatThrownBy(() -> Schema.parse(":bigint", "--schema-left"))
                .isInstanceOf(UsageException.class).hasMessageContaining("has no column name");
        assertThatThrownBy(() -> Schema.parse("id:bigint,id:double", "--schema-left"))
                .isInstanceOf(UsageException.class).hasMessageContaining("names column 'id' twice");
        assertThatThrownBy(() -> Schema.parse("id:bigint,", "--schema-left"))
                .isInstanceOf(UsageException.class).hasMessageContaining("entry '' has no type");
        assertThatThrownBy(() -> Schema.parse(" ", "--schema-left"))
                .isInstanceOf(UsageException.class).hasMessageContaining("--schema-left is empty");
    }

    @Test
    void keyPairsParse() {
        KeyPairs pairs = KeyPairs.parse("a=x, b = y,c");
        assertThat(pairs.leftNames()).containsExactly("a", "b", "c");
        assertThat(pairs.rightNames()).containsExactly("x", "y", "c");
        for (String bad : new String[] {"", "a=", "=x", "a=b=c", "a=x,,b=y"}) {
            assertThatThrownBy(() -> KeyPairs.parse(bad)).as(bad).isInstanceOf(UsageException.class)
                    .hasMessageContaining("--on");
        }
    }
}
