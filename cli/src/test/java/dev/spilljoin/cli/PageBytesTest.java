package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Parquet writer's page buffers by bytes: a page assembled in one array ({@link PageBytes}) is the page's bytes,
 * and an array a page grew past the kept size is let go once the page is out, a smaller one kept; the compressor
 * reads a page in place (from any offset) or from pieces, and keeps no output array past
 * {@link ParquetResultWriter#MAX_KEPT_BUFFER_BYTES} after a page of megabytes.
 */
class PageBytesTest {
    private static final int KEPT = ParquetResultWriter.MAX_KEPT_BUFFER_BYTES;

    @Test
    void aPageIsAssembledWholeAndAnArrayAboveTheKeptSizeIsLetGo() throws Exception {
        PageBytes assembled = new PageBytes(1000);
        byte[] small = bytes(new SplittableRandom(1), 900);
        BytesInput page = assembled.assemble(pieces(small));
        assertThat(page.toByteArray()).isEqualTo(small);
        assembled.releaseLarge();
        assertThat(assembled.keptBytes()).as("an array within the kept size stays").isBetween(900, 1000);
        byte[] large = bytes(new SplittableRandom(2), 5000);
        assertThat(assembled.assemble(pieces(large)).toByteArray()).isEqualTo(large);
        assembled.releaseLarge();
        assertThat(assembled.keptBytes()).as("an array past the kept size is let go").isZero();
        assertThat(assembled.assemble(pieces(small)).toByteArray()).isEqualTo(small);
    }

    @ParameterizedTest
    @EnumSource(value = CompressionCodecName.class, names = {"SNAPPY", "ZSTD", "GZIP"})
    void theCompressorKeepsNoOutputArrayPastTheKeptSize(CompressionCodecName codec) throws Exception {
        ParquetCodecs.PageCompressor compressor = (ParquetCodecs.PageCompressor) ParquetCodecs.INSTANCE
                .getCompressor(codec);
        SplittableRandom random = new SplittableRandom(3);
        byte[] ordinary = letters(random, 300_000);
        assertRoundTrip(codec, compressor.compress(BytesInput.from(ordinary)), ordinary);
        assertThat(compressor.keptBytes()).as("an ordinary page's output array").isLessThanOrEqualTo(KEPT);
        byte[] incompressible = bytes(random, KEPT + (1 << 20)); // its output array is larger than the page
        assertRoundTrip(codec, compressor.compress(BytesInput.from(incompressible)), incompressible);
        assertThat(compressor.keptBytes()).as("after a page of megabytes").isLessThanOrEqualTo(KEPT);
        byte[] held = new byte[ordinary.length + 7];
        System.arraycopy(ordinary, 0, held, 7, ordinary.length);
        assertRoundTrip(codec, compressor.compress(BytesInput.from(held, 7, ordinary.length)), ordinary);
        assertRoundTrip(codec, compressor.compress(pieces(incompressible)), incompressible);
        assertThat(compressor.keptBytes()).as("after a page of megabytes in pieces").isLessThanOrEqualTo(KEPT);
    }

    private static void assertRoundTrip(CompressionCodecName codec, BytesInput compressed, byte[] page)
            throws Exception {
        byte[] bytes = compressed.toByteArray();
        assertThat(ParquetCodecs.decompress(codec, bytes, bytes.length, page.length)).isEqualTo(page);
    }

    /** {@code bytes} as three pieces, as a page's levels and values are handed over. */
    private static BytesInput pieces(byte[] bytes) {
        int third = bytes.length / 3;
        return BytesInput.concat(BytesInput.from(Arrays.copyOfRange(bytes, 0, third)),
                BytesInput.from(Arrays.copyOfRange(bytes, third, 2 * third)),
                BytesInput.from(Arrays.copyOfRange(bytes, 2 * third, bytes.length)));
    }

    private static byte[] bytes(SplittableRandom random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    private static byte[] letters(SplittableRandom random, int length) {
        byte[] letters = new byte[length];
        for (int i = 0; i < length; i++) {
            letters[i] = (byte) ('a' + random.nextInt(4));
        }
        return letters;
    }
}
