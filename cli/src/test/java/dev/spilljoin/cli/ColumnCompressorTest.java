package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;

/**
 * {@link ColumnCompressor}: a chunk whose tested page the codec does not shrink by a sixteenth is stored as it is and
 * named UNCOMPRESSED, every page of it; a chunk that shrinks is compressed whole and named by the codec; one test
 * decides for {@value ColumnCompressor#CHUNKS_PER_TEST} chunks, and the next chunk tests again.
 */
class ColumnCompressorTest {
    private static final CompressionCodecName SNAPPY = CompressionCodecName.SNAPPY;

    private static BytesInput randomPage(long seed, int bytes) {
        byte[] page = new byte[bytes];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < bytes; i++) {
            page[i] = (byte) random.nextInt();
        }
        return BytesInput.from(page);
    }

    private static BytesInput textPage(int bytes) {
        return BytesInput.from("name-42,".repeat(bytes / 8).getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aChunkSnappyCannotShrinkIsStoredWholeAndNamedUncompressed() throws Exception {
        ColumnCompressor compressor = new ColumnCompressor(ParquetCodecs.INSTANCE.getCompressor(SNAPPY));
        compressor.startChunk();
        BytesInput incompressible = randomPage(1, 64 << 10);
        assertThat(compressor.compress(incompressible)).as("the tested page").isSameAs(incompressible);
        BytesInput text = textPage(64 << 10);
        assertThat(compressor.compress(text)).as("a later page of the chunk, however compressible").isSameAs(text);
        assertThat(compressor.getCodecName()).isEqualTo(CompressionCodecName.UNCOMPRESSED);
    }

    @Test
    void aChunkSnappyShrinksIsCompressedWholeAndNamedSnappy() throws Exception {
        ColumnCompressor compressor = new ColumnCompressor(ParquetCodecs.INSTANCE.getCompressor(SNAPPY));
        compressor.startChunk();
        byte[] text = textPage(64 << 10).toByteArray();
        byte[] compressed = compressor.compress(BytesInput.from(text)).toByteArray();
        assertThat(compressed.length).isLessThan(text.length / 4);
        assertThat(ParquetCodecs.decompress(SNAPPY, compressed, compressed.length, text.length)).isEqualTo(text);
        byte[] random = randomPage(2, 64 << 10).toByteArray();
        byte[] second = compressor.compress(BytesInput.from(random)).toByteArray();
        assertThat(ParquetCodecs.decompress(SNAPPY, second, second.length, random.length))
                .as("a later page of the chunk, however incompressible, compressed too").isEqualTo(random);
        assertThat(compressor.getCodecName()).isEqualTo(SNAPPY);
    }

    /** The tested page must shrink by a sixteenth: 1,500 of 1,600 bytes is enough, 1,501 is not. */
    @Test
    void aPageMustShrinkByASixteenth() throws Exception {
        for (int compressedBytes : new int[] {1_500, 1_501}) {
            SizedCompressor codec = new SizedCompressor();
            codec.outputBytes = compressedBytes;
            ColumnCompressor compressor = new ColumnCompressor(codec);
            compressor.startChunk();
            compressor.compress(BytesInput.from(new byte[1_600]));
            assertThat(compressor.getCodecName()).as("%d of 1600 bytes", compressedBytes)
                    .isEqualTo(compressedBytes == 1_500 ? SNAPPY : CompressionCodecName.UNCOMPRESSED);
        }
    }

    /**
     * One test stands for {@value ColumnCompressor#CHUNKS_PER_TEST} chunks: the chunks after a stored one's test
     * compress nothing, the first chunk after them tests again and, its page now shrinking, compresses every page.
     */
    @Test
    void oneTestDecidesForEightChunksThenTheNextChunkTestsAgain() throws Exception {
        SizedCompressor codec = new SizedCompressor();
        ColumnCompressor compressor = new ColumnCompressor(codec);
        codec.outputBytes = 1_000;
        for (int chunk = 0; chunk < ColumnCompressor.CHUNKS_PER_TEST; chunk++) {
            compressor.startChunk();
            for (int page = 0; page < 3; page++) {
                compressor.compress(BytesInput.from(new byte[1_000]));
            }
            assertThat(compressor.getCodecName()).as("chunk %d", chunk).isEqualTo(CompressionCodecName.UNCOMPRESSED);
        }
        assertThat(codec.calls).as("pages compressed: the first chunk's tested one").isEqualTo(1);
        codec.outputBytes = 100;
        compressor.startChunk();
        for (int page = 0; page < 3; page++) {
            compressor.compress(BytesInput.from(new byte[1_000]));
        }
        assertThat(compressor.getCodecName()).isEqualTo(SNAPPY);
        assertThat(codec.calls).as("pages compressed: the ninth chunk's three too").isEqualTo(4);
    }

    /** A stand-in codec whose pages come out at {@link #outputBytes}, counting its calls. */
    private static final class SizedCompressor implements BytesInputCompressor {
        int outputBytes;
        int calls;

        @Override
        public BytesInput compress(BytesInput bytes) {
            calls++;
            return BytesInput.from(new byte[outputBytes]);
        }

        @Override
        public CompressionCodecName getCodecName() {
            return SNAPPY;
        }

        @Override
        public void release() {
        }
    }
}
