package dev.spilljoin.cli;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strings that carry any bytes of an input file (header names, values quoted in messages), and their printable form.
 *
 * <p>Decoding is UTF-8, except that each byte of a sequence that is not valid UTF-8 becomes the lone surrogate
 * {@code U+DC00 + byte} (the "surrogateescape" scheme); valid UTF-8 never decodes to a lone surrogate, so
 * {@link #encode} gives back the very bytes {@link #decode} was given. {@link #printable} makes such a string safe for a
 * one-line message: control characters and escaped bytes are written as {@code \xNN} (C1 controls as
 * {@code \}{@code uNNNN}), so an ESC in a header cannot drive the terminal.
 *
 * <p>A user names such a column in that same spelling ({@link #unescape}, for {@code --on} and the
 * {@code --schema-*} names): {@code \xNN} is the byte NN when NN is 80..ff (a byte that is not UTF-8), else the
 * character NN; {@code \}{@code uNNNN} the character; {@code \\} a backslash. A backslash followed by anything
 * else is itself, so names without escapes read as before. {@link #printable} doubles a backslash exactly when what
 * follows would read as an escape, so a printed name unescapes to the name: the spelling is unambiguous.
 */
final class RawText {
    private static final char ESCAPED_BYTES = 0xDC00;

    private RawText() {
    }

    /** The string of {@code bytes[from .. from + length)}: UTF-8, with each invalid byte as an escaped surrogate. */
    static String decode(byte[] bytes, int from, int length) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes, from, length);
        CharBuffer out = CharBuffer.allocate(length);
        while (true) {
            CoderResult result = decoder.decode(in, out, true);
            if (result.isError()) {
                for (int i = 0; i < result.length(); i++) {
                    out.put((char) (ESCAPED_BYTES | (in.get() & 0xFF)));
                }
            } else {
                decoder.flush(out);
                return out.flip().toString();
            }
        }
    }

    /** The bytes {@code text} was {@link #decode decoded} from (plain UTF-8 for any other string). */
    static byte[] encode(String text) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length() + 8);
        int runStart = 0;
        for (int i = 0; i < text.length(); i++) {
            if (isEscapedByte(text, i)) {
                bytes.writeBytes(text.substring(runStart, i).getBytes(StandardCharsets.UTF_8));
                bytes.write(text.charAt(i) & 0xFF);
                runStart = i + 1;
            }
        }
        bytes.writeBytes(text.substring(runStart).getBytes(StandardCharsets.UTF_8));
        return bytes.toByteArray();
    }

    /**
     * {@code text} with control characters and escaped bytes written as escapes, and a backslash that would read as
     * the start of one doubled, for a message.
     */
    static String printable(String text) {
        StringBuilder result = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (printedAsIs(text, i)) {
                if (result != null) {
                    result.append(c);
                }
                continue;
            }
            if (result == null) {
                result = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            result.append(c == '\\' ? "\\\\" : c >= 0x80 && c <= 0x9F ? String.format("\\u%04x", (int) c)
                    : String.format("\\x%02x", c & 0xFF));
        }
        return result == null ? text : result.toString();
    }

    /**
     * Whether {@link #printable} writes {@code text[i]} as it is: not a control character nor an escaped byte, nor a
     * backslash that would read as an escape, with what follows it as printed.
     */
    private static boolean printedAsIs(String text, int i) {
        char c = text.charAt(i);
        if (c < 0x20 || c == 0x7F || c >= 0x80 && c <= 0x9F || isEscapedByte(text, i)) {
            return false;
        }
        // a following backslash makes escapeLength 2, so the recursion is one call deep
        return c != '\\' || escapeLength(text, i) == 0 && (i + 1 == text.length() || printedAsIs(text, i + 1));
    }

    /** The name a user wrote as {@code spelled}, its escapes ({@link #printable}'s) read back. */
    static String unescape(String spelled) {
        StringBuilder result = null;
        for (int i = 0; i < spelled.length(); i++) {
            int length = escapeLength(spelled, i);
            if (length == 0) {
                if (result != null) {
                    result.append(spelled.charAt(i));
                }
                continue;
            }
            if (result == null) {
                result = new StringBuilder(spelled.length()).append(spelled, 0, i);
            }
            int value = length == 2 ? '\\' : Integer.parseInt(spelled.substring(i + 2, i + length), 16);
            result.append((char) (length == 4 && value >= 0x80 ? ESCAPED_BYTES | value : value));
            i += length - 1;
        }
        return result == null ? spelled : result.toString();
    }

    /**
     * The length of the escape starting at {@code text[i]}: 2 for {@code \\}, 4 for {@code \xNN}, 6 for
     * {@code \}{@code uNNNN} (hexadecimal digits of either case); 0 when none starts there.
     */
    private static int escapeLength(String text, int i) {
        if (text.charAt(i) != '\\' || i + 1 >= text.length()) {
            return 0;
        }
        char next = text.charAt(i + 1);
        if (next == '\\') {
            return 2;
        }
        int digits = next == 'x' ? 2 : next == 'u' ? 4 : 0;
        if (digits == 0 || i + 2 + digits > text.length()) {
            return 0;
        }
        for (int d = i + 2; d < i + 2 + digits; d++) {
            if (Character.digit(text.charAt(d), 16) < 0) {
                return 0;
            }
        }
        return 2 + digits;
    }

    private static boolean isEscapedByte(String text, int i) {
        char c = text.charAt(i);
        return c >= ESCAPED_BYTES + 0x80 && c <= ESCAPED_BYTES + 0xFF
                && (i == 0 || !Character.isHighSurrogate(text.charAt(i - 1)));
    }
}
