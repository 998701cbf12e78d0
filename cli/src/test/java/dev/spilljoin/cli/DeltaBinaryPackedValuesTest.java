package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.SplittableRandom;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesReader;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForInteger;
import org.apache.parquet.column.values.delta.DeltaBinaryPackingValuesWriterForLong;
import org.junit.jupiter.api.Test;

/**
 * spilljoin's DELTA_BINARY_PACKED encoder against parquet-java's reader and writer: pages of every length around the
 * block and miniblock sizes, of values whose deltas need every bit width from 0 to 64 (INT64) or 32 (INT32, deltas
 * wrapping at 32 bits), written one value at a time and in runs, read back as written page after page of the same
 * encoder; and where the format leaves nothing open (no partial last block) byte for byte parquet-java's encoding.
 */
class DeltaBinaryPackedValuesTest {
    private static final int[] LENGTHS = {0, 1, 2, 31, 32, 33, 127, 128, 129, 130, 255, 257, 1000, 4097, 20_000};

    @Test
    void longPagesOfEveryLengthAndWidthReadBackAsWritten() throws IOException {
        SplittableRandom random = SeededRandom.create("longPagesOfEveryLengthAndWidthReadBackAsWritten");
        DeltaBinaryPackedValues encoder = new DeltaBinaryPackedValues(false, 64);
        for (int kind = 0; kind < Kind.values().length; kind++) {
            for (int length : LENGTHS) {
                long[] values = Kind.values()[kind].longs(random, length);
                writeInRandomRuns(encoder, values, random);
                long[] read = readLongs(encoder.getBytes(), length);
                assertThat(read).as("%s, %d values", Kind.values()[kind], length).isEqualTo(values);
                encoder.reset();
            }
        }
    }

    @Test
    void intPagesReadBackAsWrittenWithDeltasWrappingAt32Bits() throws IOException {
        SplittableRandom random = SeededRandom.create("intPagesReadBackAsWrittenWithDeltasWrappingAt32Bits");
        DeltaBinaryPackedValues encoder = new DeltaBinaryPackedValues(true, 64);
        for (Kind kind : Kind.values()) {
            for (int length : LENGTHS) {
                long[] longs = kind.longs(random, length);
                int[] values = new int[length];
                for (int i = 0; i < length; i++) {
                    values[i] = (int) longs[i];
                    encoder.writeInteger(values[i]);
                }
                DeltaBinaryPackingValuesReader reader = reader(encoder.getBytes(), length);
                for (int i = 0; i < length; i++) {
                    assertThat(reader.readInteger()).as("%s, value %d of %d", kind, i, length).isEqualTo(values[i]);
                }
                encoder.reset();
            }
        }
    }

    @Test
    void wholeBlocksAreParquetJavasBytes() throws IOException {
        SplittableRandom random = SeededRandom.create("wholeBlocksAreParquetJavasBytes");
        for (Kind kind : Kind.values()) {
            for (int blocks = 0; blocks <= 20; blocks += 5) {
                long[] values = kind.longs(random, 1 + blocks * DeltaBinaryPackedValues.BLOCK_VALUES);
                DeltaBinaryPackedValues ours = new DeltaBinaryPackedValues(false, 64);
                ValuesWriter theirs = new DeltaBinaryPackingValuesWriterForLong(64, 1 << 20,
                        new HeapByteBufferAllocator());
                DeltaBinaryPackedValues ours32 = new DeltaBinaryPackedValues(true, 64);
                ValuesWriter theirs32 = new DeltaBinaryPackingValuesWriterForInteger(64, 1 << 20,
                        new HeapByteBufferAllocator());
                ours.writeLongs(values, 0, values.length);
                for (long v : values) {
                    theirs.writeLong(v);
                    ours32.writeInteger((int) v);
                    theirs32.writeInteger((int) v);
                }
                assertThat(ours.getBytes().toByteArray()).as("%s INT64, %d blocks", kind, blocks)
                        .isEqualTo(theirs.getBytes().toByteArray());
                assertThat(ours32.getBytes().toByteArray()).as("%s INT32, %d blocks", kind, blocks)
                        .isEqualTo(theirs32.getBytes().toByteArray());
            }
        }
    }

    /**
     * A last block shorter than 128 deltas is packed from its own deltas alone (padded with zero bits): after a block
     * of 64-bit deltas, ten deltas of 1 cost the block's smallest delta and its four widths of 0, five bytes.
     */
    @Test
    void aPartialLastBlockPacksOnlyItsOwnDeltas() {
        SplittableRandom random = SeededRandom.create("aPartialLastBlockPacksOnlyItsOwnDeltas");
        DeltaBinaryPackedValues encoder = new DeltaBinaryPackedValues(false, 64);
        long[] values = new long[1 + DeltaBinaryPackedValues.BLOCK_VALUES + 10];
        for (int i = 0; i < values.length; i++) {
            values[i] = i <= DeltaBinaryPackedValues.BLOCK_VALUES ? random.nextLong() : values[i - 1] + 1;
        }
        encoder.writeLongs(values, 0, values.length - 10);
        long wholeBlock = encoder.getBytes().size();
        encoder.reset();
        encoder.writeLongs(values, 0, values.length);
        assertThat(encoder.getBytes().size()).isEqualTo(wholeBlock + 5);
    }

    /** Writes {@code values} one at a time and in runs of random lengths, as a column vector's runs arrive. */
    private static void writeInRandomRuns(DeltaBinaryPackedValues encoder, long[] values, SplittableRandom random) {
        for (int i = 0; i < values.length; ) {
            if (random.nextInt(4) == 0) {
                encoder.writeLong(values[i++]);
            } else {
                int end = Math.min(values.length, i + random.nextInt(1, 300));
                encoder.writeLongs(values, i, end);
                i = end;
            }
        }
    }

    private static long[] readLongs(BytesInput page, int count) throws IOException {
        DeltaBinaryPackingValuesReader reader = reader(page, count);
        long[] values = new long[count];
        for (int i = 0; i < count; i++) {
            values[i] = reader.readLong();
        }
        return values;
    }

    private static DeltaBinaryPackingValuesReader reader(BytesInput page, int count) throws IOException {
        DeltaBinaryPackingValuesReader reader = new DeltaBinaryPackingValuesReader();
        reader.initFromPage(count, ByteBufferInputStream.wrap(page.toByteBuffer()));
        return reader;
    }

    /** Value sequences whose deltas need few bits, every bit, none, or wrap around. */
    private enum Kind {
        /** Ascending ids with small gaps: narrow deltas. */
        ASCENDING,
        /** Random 64-bit values: deltas of every bit, wrapping. */
        RANDOM,
        /** One value repeated: deltas of width 0. */
        CONSTANT,
        /** The extremes alternating: the widest deltas, wrapping. */
        EXTREMES,
        /** Each miniblock's values of a random width of its own, signed. */
        MIXED_WIDTHS;

        long[] longs(SplittableRandom random, int length) {
            long[] values = new long[length];
            long constant = random.nextLong();
            int width = 0;
            for (int i = 0; i < length; i++) {
                if (i % DeltaBinaryPackedValues.MINIBLOCK_VALUES == 0) {
                    width = random.nextInt(65);
                }
                values[i] = switch (this) {
                    case ASCENDING -> (i == 0 ? random.nextInt(1 << 20) : values[i - 1]) + random.nextInt(1, 9);
                    case RANDOM -> random.nextLong();
                    case CONSTANT -> constant;
                    case EXTREMES -> i % 2 == 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
                    case MIXED_WIDTHS -> width == 0 ? 0L : random.nextLong() >> (64 - width);
                };
            }
            return values;
        }
    }
}
