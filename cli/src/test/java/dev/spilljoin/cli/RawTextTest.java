package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RawTextTest {
    @Test
    void anyBytesDecodeAndEncodeBackToThemselves() {
        long seed = SeededRandom.seed("RawTextTest");
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < 10_000; i++) {
            byte[] bytes = new byte[random.nextInt(12)];
            for (int b = 0; b < bytes.length; b++) {
                bytes[b] = (byte) (random.nextBoolean() ? random.nextInt(256) : "aé€😀".getBytes(
                        StandardCharsets.UTF_8)[random.nextInt(10)]);
            }
            assertThat(RawText.encode(RawText.decode(bytes, 0, bytes.length))).as("seed %d", seed).isEqualTo(bytes);
        }
    }

    @Test
    void validUtf8DecodesAsUsualAndInvalidBytesShowAsEscapesInMessages() {
        byte[] valid = "né😀".getBytes(StandardCharsets.UTF_8);
        assertThat(RawText.decode(valid, 0, valid.length)).isEqualTo("né😀");
        byte[] invalid = {'a', (byte) 0xFF, (byte) 0xC3, 'b'};
        String decoded = RawText.decode(invalid, 0, invalid.length);
        assertThat(decoded).hasSize(4).doesNotContain("\uFFFD");
        assertThat(RawText.printable(decoded)).isEqualTo("a\\xff\\xc3b");
    }

    @Test
    void controlCharactersAreEscapedForMessagesAndOtherTextIsLeftAlone() {
        assertThat(RawText.printable("col\u001b[31mred\r\n\t\u007f\u0085")).isEqualTo(
                "col\\x1b[31mred\\x0d\\x0a\\x09\\x7f\\u0085");
        assertThat(RawText.printable("plain café 😀")).isEqualTo("plain café 😀");
        assertThat(new UsageException("name 'a\u001bb'").getMessage()).isEqualTo("name 'a\\x1bb'");
    }

    @Test
    void aNameSpelledAsMessagesPrintItReadsBackAsTheName() {
        assertThat(RawText.unescape("k\\xff")).isEqualTo(RawText.decode(new byte[] {'k', (byte) 0xFF}, 0, 2));
        assertThat(RawText.unescape("a\\x2cb\\x09\\u0085\\x7F")).isEqualTo("a,b\t\u0085\u007f");
        assertThat(RawText.unescape("a\\\\x41")).isEqualTo("a\\x41");
        assertThat(RawText.unescape("C:\\temp\\x4\\u12\\")).isEqualTo("C:\\temp\\x4\\u12\\");
        assertThat(RawText.printable("a\\x41")).isEqualTo("a\\\\x41");
        assertThat(RawText.printable("C:\\temp\\")).isEqualTo("C:\\temp\\");
    }

    @Test
    void everyPrintedNameUnescapesToItself() {
        long seed = SeededRandom.seed("RawTextTest.unescape");
        SplittableRandom random = new SplittableRandom(seed);
        String pieces = "\\xXu0aF7f\u0085\u001b,=é";
        for (int i = 0; i < 10_000; i++) {
            byte[] bytes = new byte[random.nextInt(10)];
            for (int b = 0; b < bytes.length; b++) {
                byte[] piece = String.valueOf(pieces.charAt(random.nextInt(pieces.length())))
                        .getBytes(StandardCharsets.UTF_8);
                bytes[b] = random.nextInt(4) == 0 ? (byte) random.nextInt(256) : piece[random.nextInt(piece.length)];
            }
            String name = RawText.decode(bytes, 0, bytes.length);
            assertThat(RawText.unescape(RawText.printable(name))).as("seed %d, printed %s", seed,
                    RawText.printable(name)).isEqualTo(name);
        }
    }
}
