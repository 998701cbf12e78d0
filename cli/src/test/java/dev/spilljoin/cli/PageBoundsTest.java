package dev.spilljoin.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;

/**
 * A page's statistics fed values of {@value PageBounds#VALUE_BOUNDS_FROM} bytes or more as their bounds
 * ({@link PageBounds#update}) come out, once shortened, as the same minimum and maximum as when fed the whole values,
 * for text (cut between characters) and bytes that are not text, among short values, and with a value of 0xFF bytes
 * that no shorter value bounds from above; and they never hold a copy of such a value except that one.
 */
class PageBoundsTest {
    private static final PrimitiveType TEXT = Types.optional(PrimitiveTypeName.BINARY)
            .as(LogicalTypeAnnotation.stringType()).named("text");
    private static final PrimitiveType BYTES = Types.optional(PrimitiveTypeName.BINARY).named("bytes");

    @Test
    void longValuesEnteredAsTheirBoundsShortenToTheBoundsOfTheWholeValues() {
        SplittableRandom random = SeededRandom.create(
                "longValuesEnteredAsTheirBoundsShortenToTheBoundsOfTheWholeValues");
        byte[] reused = new byte[4 * PageBounds.VALUE_BOUNDS_FROM]; // the writer's values sit in reused arrays
        for (int page = 0; page < 200; page++) {
            PrimitiveType type = page % 2 == 0 ? TEXT : BYTES;
            PageBounds bounds = new PageBounds(type);
            Statistics<?> whole = Statistics.createStats(type);
            Statistics<?> entered = Statistics.createStats(type);
            boolean onesAbove = false;
            for (byte[] value : pageValues(random, type == TEXT, page % 10 == 9)) {
                System.arraycopy(value, 0, reused, 0, value.length);
                Arrays.fill(reused, value.length, Math.min(reused.length, value.length + 8), (byte) 0x55);
                whole.updateStats(Binary.fromReusedByteArray(reused, 0, value.length));
                bounds.update(entered, Binary.fromReusedByteArray(reused, 0, value.length));
                onesAbove |= value.length >= PageBounds.VALUE_BOUNDS_FROM && (value[0] & 0xFF) == 0xFF;
            }
            Statistics<?> expected = bounds.shortened(whole);
            Statistics<?> actual = bounds.shortened(entered);
            String what = "page " + page + " of " + type;
            assertThat(actual.getMinBytes()).as(what + ": minimum").isEqualTo(expected.getMinBytes());
            assertThat(actual.getMaxBytes()).as(what + ": maximum").isEqualTo(expected.getMaxBytes());
            assertThat(entered.getMinBytes().length).as(what + ": the minimum held")
                    .isLessThan(PageBounds.VALUE_BOUNDS_FROM);
            if (!onesAbove) {
                assertThat(entered.getMaxBytes().length).as(what + ": the maximum held")
                        .isLessThan(PageBounds.VALUE_BOUNDS_FROM);
            }
        }
    }

    /**
     * Two long texts alike up to byte 1,023, where the larger has a character of four bytes (its bound cut before
     * it) and the smaller a letter (its bound cut after it): the page's minimum shortens to the smaller's 1,024-byte
     * bound, not to the larger's 1,023 bytes, which bounds cut at the final length gave (one page in some
     * thousands of the random test's).
     */
    @Test
    void boundsCutBetweenCharactersKeepTheirValuesOrder() {
        String alike = "a".repeat(PageBounds.BOUND_BYTES - 1);
        String pad = "z".repeat(PageBounds.VALUE_BOUNDS_FROM);
        byte[] larger = (alike + "\uD83D\uDE00" + pad).getBytes(UTF_8); // U+1F600, four bytes
        byte[] smaller = (alike + "b" + pad).getBytes(UTF_8);
        PageBounds bounds = new PageBounds(TEXT);
        Statistics<?> entered = Statistics.createStats(TEXT);
        Statistics<?> whole = Statistics.createStats(TEXT);
        for (byte[] value : List.of(larger, smaller)) {
            bounds.update(entered, Binary.fromConstantByteArray(value));
            whole.updateStats(Binary.fromConstantByteArray(value));
        }
        byte[] expected = Arrays.copyOf(smaller, PageBounds.BOUND_BYTES);
        assertThat(bounds.shortened(whole).getMinBytes()).isEqualTo(expected);
        assertThat(bounds.shortened(entered).getMinBytes()).isEqualTo(expected);
    }

    /**
     * A page's values: a few long ones (text of characters of 1 to 4 bytes, or bytes that are not text), some short,
     * sharing a prefix now and then (so that their bounds meet), and with {@code onesAbove} one long value of 0xFF
     * bytes.
     */
    private static List<byte[]> pageValues(SplittableRandom random, boolean text, boolean onesAbove) {
        List<byte[]> values = new ArrayList<>();
        byte[] prefix = text ? text(random, 1 + random.nextInt(3000)) : randomBytes(random, 3000);
        for (int v = 1 + random.nextInt(8); v > 0; v--) {
            int length = random.nextInt(3) == 0 ? random.nextInt(2 * PageBounds.BOUND_BYTES)
                    : PageBounds.VALUE_BOUNDS_FROM + random.nextInt(PageBounds.VALUE_BOUNDS_FROM);
            boolean prefixed = random.nextBoolean();
            byte[] value;
            if (text) { // the prefix and then whole characters, so that the value stays text
                byte[] rest = text(random, length);
                value = prefixed ? Arrays.copyOf(prefix, prefix.length + rest.length) : rest;
                if (prefixed) {
                    System.arraycopy(rest, 0, value, prefix.length, rest.length);
                }
            } else {
                value = randomBytes(random, length);
                if (prefixed) {
                    System.arraycopy(prefix, 0, value, 0, Math.min(prefix.length, value.length));
                }
            }
            values.add(value);
        }
        if (onesAbove) {
            byte[] ones = new byte[PageBounds.VALUE_BOUNDS_FROM + random.nextInt(1000)];
            Arrays.fill(ones, (byte) 0xFF);
            values.add(ones);
        }
        return values;
    }

    /** Text of at least {@code length} bytes, of characters of 1 to 4 bytes in UTF-8. */
    private static byte[] text(SplittableRandom random, int length) {
        byte[][] characters = {"a".getBytes(UTF_8), "z".getBytes(UTF_8), "é".getBytes(UTF_8), "€".getBytes(UTF_8),
            "😀".getBytes(UTF_8)};
        ByteArrayOutputStream text = new ByteArrayOutputStream(length + 4);
        while (text.size() < length) {
            text.writeBytes(characters[random.nextInt(characters.length)]);
        }
        return text.toByteArray();
    }

    private static byte[] randomBytes(SplittableRandom random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }
}
