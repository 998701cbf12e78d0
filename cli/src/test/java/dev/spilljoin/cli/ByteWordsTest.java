package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The word-at-a-time helpers against byte loops: {@code matches}/{@code firstMatch} find the first byte equal to the
 * pattern's, or none, in words whose bytes are the pattern's byte, its neighbours, zero and 0x80/0xFF (where borrows
 * and sign bits could mislead); {@code copy} moves exactly its bytes at every length 0-40, anywhere in its arrays,
 * writing past the value only as documented (below 8 bytes, within the next 8).
 */
class ByteWordsTest {
    @Test
    void theFirstMatchIsTheFirstEqualByteAndNoMatchMeansNone() {
        SplittableRandom random = SeededRandom.create("ByteWordsTest");
        for (byte value : new byte[] {',', ';', '\t', '\n', '\r', '"', 0, (byte) 0x80, (byte) 0xFF, 1}) {
            byte[] kinds = {value, (byte) (value + 1), (byte) (value - 1), 0, (byte) 0x80, (byte) 0xFF, 'a'};
            long pattern = ByteWords.repeated(value);
            for (int n = 0; n < 20_000; n++) {
                byte[] bytes = new byte[8];
                for (int i = 0; i < 8; i++) {
                    bytes[i] = kinds[random.nextInt(kinds.length)];
                }
                int first = -1;
                for (int i = 0; i < 8 && first < 0; i++) {
                    first = bytes[i] == value ? i : -1;
                }
                long mask = ByteWords.matches(ByteWords.word(bytes, 0), pattern);
                assertThat(mask != 0).as("any %s in %s", value, Arrays.toString(bytes)).isEqualTo(first >= 0);
                if (first >= 0) {
                    assertThat(ByteWords.firstMatch(mask)).as("first %s in %s", value, Arrays.toString(bytes))
                            .isEqualTo(first);
                }
            }
        }
    }

    @Test
    void copyMovesExactlyTheValueAndWritesPastItOnlyBelowEightBytes() {
        for (int length = 0; length <= 40; length++) {
            for (int slack = 0; slack <= 9; slack++) { // bytes after the value in the source
                for (int from = 0; from <= 9; from += 3) {
                    byte[] src = new byte[from + length + slack];
                    for (int i = 0; i < src.length; i++) {
                        src[i] = (byte) (i * 37 + 1);
                    }
                    int to = 5;
                    byte[] dst = new byte[to + length + (slack * 7) % 10]; // its own slack
                    Arrays.fill(dst, (byte) -3);
                    ByteWords.copy(src, from, dst, to, length);
                    for (int i = 0; i < dst.length; i++) {
                        String where = "length " + length + ", slack " + slack + ", from " + from + ", byte " + i;
                        if (i >= to && i < to + length) {
                            assertThat(dst[i]).as(where).isEqualTo(src[from + i - to]);
                        } else if (i < to || length >= 8 || i >= to + 8) {
                            assertThat(dst[i]).as(where + " (outside)").isEqualTo((byte) -3);
                        }
                    }
                }
            }
        }
    }
}
