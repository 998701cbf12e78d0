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

    /** {@code text} with control characters and escaped bytes written as escapes, for a message. */
    static String printable(String text) {
        StringBuilder result = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean escapedByte = isEscapedByte(text, i);
            if (c >= 0x20 && c != 0x7F && !(c >= 0x80 && c <= 0x9F) && !escapedByte) {
                if (result != null) {
                    result.append(c);
                }
                continue;
            }
            if (result == null) {
                result = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            result.append(c >= 0x80 && c <= 0x9F ? String.format("\\u%04x", (int) c)
                    : String.format("\\x%02x", c & 0xFF));
        }
        return result == null ? text : result.toString();
    }

    private static boolean isEscapedByte(String text, int i) {
        char c = text.charAt(i);
        return c >= ESCAPED_BYTES + 0x80 && c <= ESCAPED_BYTES + 0xFF
                && (i == 0 || !Character.isHighSurrogate(text.charAt(i - 1)));
    }
}
