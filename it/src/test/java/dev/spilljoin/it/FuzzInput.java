package dev.spilljoin.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;

/**
 * One randomized CSV input of the CLI fuzz test: its header, key column positions and rows (null is NULL), and the
 * file it is written as, in a dialect drawn at random from what the README's "CSV" section supports: a UTF-8 byte
 * order mark, LF, CRLF, CR or mixed record ends, a last record with or without its line end, blank lines, minimal
 * or full quoting, literal quotes inside unquoted fields, a tab, {@code ;} or {@code |} delimiter, gzip.
 */
final class FuzzInput {
    /** Values of a key column: how its pool index is spelled (the inferred type follows from the spellings). */
    enum KeyStyle { BIGINT, WIDE_INTEGER, DOUBLE_OF_INTEGERS, DECIMAL, LEADING_ZEROS, BOOLEAN, TEXT, NULL_ONLY }

    /** Pieces of awkward text (delimiters, quotes, line ends, accents, emoji, NULL spellings). */
    static final String[] PIECES = {
        "a", "Zq", "0", "01", "1.0", "-0", " ", "  lead", "trail  ", ",", ";", "|", "\t", "\"", "\"\"", "\n", "\r\n",
        "\r", "é", "e\u0301", "日本", "\uD83D\uDE00", "x\"y", "NULL", "\\N", "''",
    };
    /** DOUBLE spellings of no decimal: non-numbers, infinities, underflow, and zeros of either sign. */
    private static final String[] SPECIAL_DOUBLES = {"NaN", "Infinity", "-Infinity", "1e-400", "-0.0", "-0e3", "0.0"};
    private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

    final String[] header;
    final int[] keyColumns;
    final List<String[]> rows;

    FuzzInput(String[] header, int[] keyColumns, List<String[]> rows) {
        this.header = header;
        this.keyColumns = keyColumns;
        this.rows = rows;
    }

    /** The values of key column {@code k}, in row order. */
    List<String> keyValues(int k) {
        return rows.stream().map(row -> row[keyColumns[k]]).toList();
    }

    /** The spelling of pool value {@code index} in {@code style}, or null for NULL. */
    static String key(KeyStyle style, long index, SplittableRandom random) {
        long n = index - 7;
        return switch (style) {
            case BIGINT -> n == 0 && random.nextInt(3) == 0 ? "-0" : switch ((int) Math.floorMod(index, 97)) {
                case 5 -> Long.toString(Long.MAX_VALUE);
                case 6 -> Long.toString(Long.MIN_VALUE);
                default -> Long.toString(n);
            };
            case WIDE_INTEGER -> index % 13 == 3 ? BigInteger.TEN.pow(19).multiply(BigInteger.valueOf(n)).toString()
                    : index % 97 == 5 ? Long.toString(Long.MAX_VALUE) : key(KeyStyle.BIGINT, index, random);
            case DOUBLE_OF_INTEGERS -> index % 11 == 4 ? n + ".5" : decimal(BigDecimal.valueOf(n), random);
            case DECIMAL -> index % 17 == 9 ? SPECIAL_DOUBLES[random.nextInt(SPECIAL_DOUBLES.length)]
                    : decimal(BigDecimal.valueOf(n, (int) Math.floorMod(index, 3)), random);
            case LEADING_ZEROS -> random.nextInt(3) == 0 ? "0" + Math.abs(n) : random.nextBoolean() ? " " + n : "" + n;
            case BOOLEAN -> randomCase(index % 2 == 0 ? "true" : "false", random);
            case TEXT -> text(new SplittableRandom(index), 1 + (int) Math.floorMod(index, 5));
            case NULL_ONLY -> random.nextInt(20) > 0 ? null : ""; // "" joins "" when both sides are so: kept rare
        };
    }

    /** A DOUBLE-grammar spelling of {@code d}: plain, trailing zeros, a trailing or leading point, exponent form. */
    private static String decimal(BigDecimal d, SplittableRandom random) {
        String plain = d.toPlainString();
        return switch (random.nextInt(7)) {
            case 0 -> plain;
            case 1 -> plain + (plain.contains(".") ? "00" : ".0");
            case 2 -> plain.contains(".") ? plain.replaceFirst("^(-?)0\\.", "$1.") : plain + ".";
            case 3 -> d.unscaledValue() + "e" + (d.scale() == 0 ? "0" : "-" + d.scale());
            case 4 -> d.unscaledValue().multiply(BigInteger.TEN) + "E-" + (d.scale() + 1);
            case 5 -> d.signum() == 0 ? "-0.0" : plain;
            default -> d.scale() == 0 && d.signum() != 0 ? d + "e+0" : plain;
        };
    }

    /** A random text of {@code pieces} pieces that the dialect must carry through unchanged. */
    static String text(SplittableRandom random, int pieces) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < pieces; i++) {
            s.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return s.toString();
    }

    private static String randomCase(String word, SplittableRandom random) {
        StringBuilder s = new StringBuilder(word.length());
        for (char c : word.toCharArray()) {
            s.append(random.nextBoolean() ? Character.toUpperCase(c) : c);
        }
        return s.toString();
    }

    /**
     * What {@link #write} wrote: the dialect, for the failure log, the malformed records it added, and the line
     * each row starts on.
     */
    record Written(String dialect, int malformed, long firstMalformedLine, long[] rowLines) {
    }

    /**
     * Writes the file at {@code file} in a dialect drawn from {@code random}, with a malformed record (a field too
     * few or too many, a character after a closing quote, a quote left open at the end) before each row with
     * probability {@code malformedRate}.
     */
    Written write(Path file, char delimiter, boolean header, double malformedRate, SplittableRandom random)
            throws IOException {
        boolean bom = random.nextInt(4) == 0;
        String[] ends = {"\n", "\r\n", "\r", "mixed"};
        // One column: a NULL is a blank line, and CR then a blank line ending LF would read as one CRLF.
        String end = ends[random.nextInt(this.header.length == 1 ? 3 : ends.length)];
        boolean quoteAll = random.nextInt(4) == 0;
        boolean lastEnd = this.header.length == 1 || random.nextBoolean();
        boolean blankLines = this.header.length > 1 && random.nextInt(4) == 0;
        boolean openQuote = malformedRate > 0 && lastEnd && random.nextInt(3) == 0;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        if (bom) {
            bytes.write(BOM);
        }
        List<String[]> records = new ArrayList<>();
        if (header) {
            records.add(this.header);
        }
        records.addAll(rows);
        int malformed = 0;
        long firstMalformedLine = 0;
        long line = 1;
        long[] rowLines = new long[rows.size()];
        boolean countFixed = false;
        for (int r = 0; r <= records.size(); r++) {
            String lineEnd = end.equals("mixed") ? ends[random.nextInt(3)] : end;
            // Never before the first record that is not a blank line, which fixes the column count: the reader
            // skips blank lines until then (a one-column file's NULL rows), so a malformed record there would
            // count the columns.
            if (countFixed && (r == records.size() ? openQuote : random.nextDouble() < malformedRate)) {
                firstMalformedLine = malformed++ == 0 ? line : firstMalformedLine;
                String record = r == records.size() ? "\"open" : malformed(delimiter, random);
                line += write(bytes, record + lineEnd);
            }
            if (r == records.size()) {
                break;
            }
            String[] record = records.get(r);
            StringBuilder text = new StringBuilder();
            for (int c = 0; c < record.length; c++) {
                text.append(c == 0 ? "" : String.valueOf(delimiter))
                        .append(field(record[c], delimiter, quoteAll, random));
            }
            if (r == records.size() - 1 && !lastEnd) {
                lineEnd = "";
            } else if (blankLines && random.nextInt(50) == 0) {
                lineEnd += lineEnd;
            }
            if (r >= records.size() - rows.size()) {
                rowLines[r - (records.size() - rows.size())] = line;
            }
            countFixed |= text.length() > 0;
            line += write(bytes, text.append(lineEnd).toString());
        }
        try (OutputStream out = file.toString().toLowerCase().endsWith(".gz")
                ? new GZIPOutputStream(Files.newOutputStream(file)) : Files.newOutputStream(file)) {
            bytes.writeTo(out);
        }
        return new Written("bom=" + bom + " end=" + end.replace("\r", "\\r").replace("\n", "\\n") + " quoteAll="
                + quoteAll + " lastLineEnd=" + lastEnd + " blankLines=" + blankLines + " malformed=" + malformed,
                malformed, firstMalformedLine, rowLines);
    }

    /** A one-line record that is not a row: a field too few, a field too many, or text after a closing quote. */
    private String malformed(char delimiter, SplittableRandom random) {
        int kind = random.nextInt(header.length > 1 ? 3 : 2);
        int fields = kind == 2 ? header.length - 1 : kind == 1 ? header.length + 1 : header.length;
        String d = String.valueOf(delimiter);
        return (kind == 0 ? "\"m\"m" : "m") + (d + "m").repeat(fields - 1);
    }

    /** Writes {@code text} (whole records) to {@code bytes}; returns its line ends: LF, CR and CRLF, each one. */
    private static long write(ByteArrayOutputStream bytes, String text) {
        bytes.writeBytes(text.getBytes(StandardCharsets.UTF_8));
        long lines = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            lines += c == '\n' && (i == 0 || text.charAt(i - 1) != '\r') || c == '\r' ? 1 : 0;
        }
        return lines;
    }

    private static String field(String value, char delimiter, boolean quoteAll, SplittableRandom random) {
        if (value == null) {
            return "";
        }
        boolean needsQuotes = value.isEmpty() || value.startsWith("\"") || value.indexOf(delimiter) >= 0
                || value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0;
        boolean literalQuote = value.indexOf('"') > 0 && random.nextBoolean();
        if (needsQuotes || quoteAll || !literalQuote && value.indexOf('"') >= 0) {
            return '"' + value.replace("\"", "\"\"") + '"';
        }
        return value;
    }
}
