package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.parquet.bytes.BytesInput;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

/**
 * Pages compressed a Snappy fragment at a time ({@link SnappyFragments}) are the bytes snappy-java's one-shot
 * {@code Snappy.rawCompress} writes for the whole page, whatever the page's length around the fragment's 64 KB, its
 * content and the pieces it comes in; and the output array kept for the next page stays within the kept size.
 */
class SnappyFragmentsTest {
    private static final int FRAGMENT = SnappyFragments.FRAGMENT_BYTES;
    private static final int KEPT = ParquetResultWriter.MAX_KEPT_BUFFER_BYTES;

    @Test
    void aPageCompressesToTheBytesOfTheWholePageCompressedAtOnce() throws Exception {
        SnappyFragments fragments = new SnappyFragments(KEPT);
        SplittableRandom random = new SplittableRandom(11);
        int[] lengths = {0, 1, 17, 127, 128, 16_383, 16_384, FRAGMENT - 1, FRAGMENT, FRAGMENT + 1, 2 * FRAGMENT,
            3 * FRAGMENT - 5, 1 << 20, KEPT + 12_345, 3_900_017};
        for (int length : lengths) {
            for (int kind = 0; kind < 4; kind++) {
                byte[] page = page(random, kind, length);
                byte[] expected = new byte[Snappy.maxCompressedLength(length)];
                int expectedLength = Snappy.rawCompress(page, 0, length, expected, 0);
                for (BytesInput input : new BytesInput[] {BytesInput.from(page), pieces(random, page)}) {
                    assertThat(fragments.compress(input).toByteArray())
                            .as("a page of %d bytes of kind %d", length, kind)
                            .isEqualTo(Arrays.copyOf(expected, expectedLength));
                }
                assertThat(fragments.keptBytes()).as("the array kept after %d bytes", length)
                        .isLessThanOrEqualTo(KEPT);
            }
        }
    }

    @Test
    void anArrayWithinTheKeptSizeIsKeptAcrossAPageOfMegabytesThatDoesNotCompress() throws Exception {
        SnappyFragments fragments = new SnappyFragments(KEPT);
        SplittableRandom random = new SplittableRandom(12);
        byte[] ordinary = page(random, 1, 300_000);
        fragments.compress(BytesInput.from(ordinary));
        int kept = fragments.keptBytes();
        assertThat(kept).as("an ordinary page's array").isBetween(300_000, KEPT);
        byte[] large = page(random, 1, KEPT + (1 << 20));
        BytesInput compressed = fragments.compress(BytesInput.from(large));
        assertThat(compressed.size()).isGreaterThan(KEPT);
        assertThat(fragments.keptBytes()).as("the array kept after a page that outgrew it").isBetween(kept, KEPT);
        assertThat(Snappy.uncompress(compressed.toByteArray())).isEqualTo(large);
        assertThat(Snappy.uncompress(fragments.compress(BytesInput.from(ordinary)).toByteArray()))
                .isEqualTo(ordinary);
    }

    /** A page of {@code length} bytes: one byte repeated, random bytes, four letters, or runs of both. */
    private static byte[] page(SplittableRandom random, int kind, int length) {
        byte[] page = new byte[length];
        for (int i = 0; i < length; i++) {
            page[i] = switch (kind) {
                case 0 -> (byte) 'x';
                case 1 -> (byte) random.nextInt();
                case 2 -> (byte) ('a' + random.nextInt(4));
                default -> (byte) (i % 251 < 40 ? random.nextInt() : i / 7);
            };
        }
        return page;
    }

    /** {@code page} in pieces of random lengths, some empty, as a page's levels and values come. */
    private static BytesInput pieces(SplittableRandom random, byte[] page) {
        BytesInput[] pieces = new BytesInput[5];
        int from = 0;
        for (int p = 0; p < pieces.length; p++) {
            int to = p == pieces.length - 1 ? page.length : from + random.nextInt(page.length - from + 1);
            pieces[p] = BytesInput.from(Arrays.copyOfRange(page, from, to));
            from = to;
        }
        return BytesInput.concat(pieces);
    }
}
