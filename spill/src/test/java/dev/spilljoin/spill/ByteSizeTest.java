package dev.spilljoin.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ByteSizeTest {

    @Test
    void parsesUnitsCaseInsensitively() {
        assertThat(ByteSize.parse("512kB")).isEqualTo(512L * 1024);
        assertThat(ByteSize.parse("64MB")).isEqualTo(64L << 20);
        assertThat(ByteSize.parse("64mb")).isEqualTo(64L << 20);
        assertThat(ByteSize.parse("1GB")).isEqualTo(1L << 30);
        assertThat(ByteSize.parse("1TB")).isEqualTo(1L << 40);
        assertThat(ByteSize.parse("4096B")).isEqualTo(4096);
    }

    @Test
    void rejectsBareNumbersAndUnknownUnitsSuggestingUnits() {
        assertThatThrownBy(() -> ByteSize.parse("64")).hasMessageContaining("no unit").hasMessageContaining("64MB");
        assertThatThrownBy(() -> ByteSize.parse("64XB")).hasMessageContaining("unknown unit 'XB'");
        assertThatThrownBy(() -> ByteSize.parse("lots")).hasMessageContaining("not a size");
        assertThatThrownBy(() -> ByteSize.parse("99999999999TB")).hasMessageContaining("too large");
    }

    @Test
    void formatsWithTheLargestUnit() {
        assertThat(ByteSize.format(100)).isEqualTo("100B");
        assertThat(ByteSize.format(1536)).isEqualTo("1.5kB");
        assertThat(ByteSize.format(64L << 20)).isEqualTo("64MB");
    }
}
