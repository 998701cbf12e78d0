package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.junit.jupiter.api.Test;

/**
 * The definition levels of a data page V1 as parquet-java's decoder reads them: a 4-byte length that is the rest's,
 * then levels equal to those written, for pages of no NULLs, only NULLs, alternating levels, runs of every length
 * around 8 and random mixes, written one level at a time and in runs, page after page of the same writer (whose
 * bitmap must start each page clear); a page of no NULLs is one RLE run.
 */
class DefinitionLevelBitsTest {

    @Test
    void pagesOfEveryPatternReadBackAsWritten() throws IOException {
        SplittableRandom random = SeededRandom.create("pagesOfEveryPatternReadBackAsWritten");
        DefinitionLevelBits writer = new DefinitionLevelBits();
        for (int page = 0; page < 400; page++) {
            int length = page < 20 ? page : random.nextInt(1, 25_000);
            int[] levels = levels(page % 5, length, random);
            for (int i = 0; i < length; ) {
                int run = 1;
                while (i + run < length && levels[i + run] == 1 && levels[i] == 1) {
                    run++;
                }
                if (levels[i] == 1 && random.nextBoolean()) {
                    writer.writeDefined(run);
                    i += run;
                } else {
                    writer.writeInteger(levels[i++]);
                }
            }
            assertThat(read(writer.getBytes().toByteArray(), length)).as("page %d, pattern %d, %d levels", page,
                    page % 5, length).isEqualTo(levels);
            writer.reset();
        }
    }

    @Test
    void aPageOfNoNullsIsOneRleRun() throws IOException {
        DefinitionLevelBits writer = new DefinitionLevelBits();
        writer.writeInteger(0);
        writer.reset();
        writer.writeDefined(20_000);
        byte[] bytes = writer.getBytes().toByteArray();
        // length 4, then the run's header (20,000 << 1 as a varint: 0xC0 0xB8 0x02) and the level 1 in a byte
        assertThat(bytes).containsExactly(4, 0, 0, 0, 0xC0 - 256, 0xB8 - 256, 0x02, 1);
        assertThat(read(bytes, 20_000)).containsOnly(1);
    }

    private static int[] levels(int pattern, int length, SplittableRandom random) {
        int[] levels = new int[length];
        int runLeft = 0;
        int level = 1;
        for (int i = 0; i < length; i++) {
            levels[i] = switch (pattern) {
                case 0 -> 1;
                case 1 -> 0;
                case 2 -> i % 2;
                case 3 -> {
                    if (runLeft == 0) {
                        runLeft = random.nextInt(1, 17);
                        level ^= 1;
                    }
                    runLeft--;
                    yield level;
                }
                default -> random.nextInt(10) == 0 ? 0 : 1;
            };
        }
        return levels;
    }

    private static int[] read(byte[] bytes, int count) throws IOException {
        int length = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt();
        assertThat(length).as("length prefix").isEqualTo(bytes.length - Integer.BYTES);
        RunLengthBitPackingHybridDecoder decoder = new RunLengthBitPackingHybridDecoder(1,
                new ByteArrayInputStream(bytes, Integer.BYTES, length));
        int[] levels = new int[count];
        for (int i = 0; i < count; i++) {
            levels[i] = decoder.readInt();
        }
        return levels;
    }
}
