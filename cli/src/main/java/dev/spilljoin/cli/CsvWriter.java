package dev.spilljoin.cli;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A buffered RFC 4180 CSV writer over bytes: no String per text field.
 *
 * <p>Fields are written one by one ({@code write…}) and rows closed with {@link #endRow()} (LF line ends).
 * NULL is an empty unquoted field; the empty string is {@code ""}; a field holding the delimiter, a quote,
 * CR or LF is quoted with inner quotes doubled; other bytes (UTF-8 included) are copied as they are. This is
 * PostgreSQL's COPY … CSV convention, which {@link CsvReader} reads back to the same values.
 *
 * <p>Numbers: BIGINT in decimal; DOUBLE as {@code NaN}, {@code Infinity}, {@code -Infinity}, an integral value
 * below 10^15 in magnitude as its digits plus {@code .0} (e.g. {@code 42.0}, {@code -0.0}), anything else as
 * {@link Double#toString} (e.g. {@code 0.1}, {@code 1.0E20}); every rendering parses back to the same double
 * in Java, DuckDB and PostgreSQL. BOOLEAN as {@code true}/{@code false}.
 *
 * <p>Writes: the buffer goes to the stream when full, whatever it ends with; or, made with {@code wholeRows},
 * only at a row's end once it holds {@code bufferBytes} or more (and at {@link #flush()}), the buffer growing for a
 * longer row and shrinking back after it: each write is then whole rows, so that writers on several threads may
 * share one stream whose {@code write} is atomic ({@link BatchCsvWriter#lanes}).
 */
public final class CsvWriter {
    public static final int DEFAULT_BUFFER_BYTES = 1 << 20;
    private static final byte QUOTE = CsvFormat.QUOTE;
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NAN = {'N', 'a', 'N'};
    private static final byte[] INFINITY = {'I', 'n', 'f', 'i', 'n', 'i', 't', 'y'};
    private static final byte[] MINUS_INFINITY = {'-', 'I', 'n', 'f', 'i', 'n', 'i', 't', 'y'};
    private static final byte[] MIN_LONG = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);
    private static final double PLAIN_LIMIT = 1e15;
    /** The largest array the JVM allocates. */
    private static final int MAX_ARRAY_BYTES = Integer.MAX_VALUE - 8;
    /** Every byte a number or a boolean is written with. */
    private static final String RENDERING_BYTES = "0123456789-.ENaIfintyruels";
    /** The longest number or boolean written: {@code Double.toString}'s, e.g. {@code -1.2345678901234567E-300}. */
    private static final int LONGEST_RENDERING = 25;
    /** 10^0 … 10^18: a long's digit count by comparisons instead of divisions. */
    private static final long[] POWERS_OF_TEN = new long[19];
    /** "00" … "99": digits are written two per division. */
    private static final byte[] DIGIT_PAIRS = new byte[200];
    /** The quote, which {@link #needsQuotes} looks for eight bytes at a time ({@link ByteWords}) besides line ends. */
    private static final long QUOTES = ByteWords.repeated(QUOTE);

    static {
        POWERS_OF_TEN[0] = 1;
        for (int i = 1; i < POWERS_OF_TEN.length; i++) {
            POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
        }
        for (int i = 0; i < 100; i++) {
            DIGIT_PAIRS[2 * i] = (byte) ('0' + i / 10);
            DIGIT_PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
    }

    private final OutputStream out;
    private final byte delimiter;
    /** The delimiter in every byte of a long. */
    private final long delimiters;
    /** The buffer's size and, with {@link #wholeRows}, the bytes at which a row's end writes it out. */
    private final int bufferBytes;
    private final boolean wholeRows;
    private byte[] buffer;
    /**
     * Whether the delimiter is a byte numbers or booleans are written with (a digit, '-', '.', a letter of E, NaN,
     * Infinity, true or false): such fields are then checked and quoted as text is; otherwise they never need it.
     */
    private final boolean renderingsMayHoldDelimiter;
    private int size;
    private boolean firstField = true;
    private long rowsWritten;

    public CsvWriter(OutputStream out, byte delimiter) {
        this(out, delimiter, DEFAULT_BUFFER_BYTES);
    }

    public CsvWriter(OutputStream out, byte delimiter, int bufferBytes) {
        this(out, delimiter, bufferBytes, false);
    }

    /** A writer whose writes to {@code out} are whole rows when {@code wholeRows} says so (see the class comment). */
    public CsvWriter(OutputStream out, byte delimiter, int bufferBytes, boolean wholeRows) {
        this.out = out;
        this.delimiter = delimiter;
        this.delimiters = ByteWords.repeated(delimiter);
        this.renderingsMayHoldDelimiter = RENDERING_BYTES.indexOf(delimiter) >= 0;
        this.bufferBytes = Math.max(bufferBytes, 64);
        this.wholeRows = wholeRows;
        this.buffer = new byte[this.bufferBytes];
    }

    /**
     * Writes the header row (names quoted when needed; a name read from a file gives back its very bytes, see
     * {@link RawText}); not counted in {@link #rowsWritten()}.
     */
    public void writeHeader(String[] names) throws IOException {
        for (String name : names) {
            byte[] bytes = RawText.encode(name);
            writeText(bytes, 0, bytes.length);
        }
        endLine();
    }

    public void writeNull() throws IOException {
        separate();
    }

    /** Writes a text (non-NULL) field from {@code bytes[from .. from + length)}. */
    public void writeText(byte[] bytes, int from, int length) throws IOException {
        separate();
        long most = maxTextBytes(length);
        if (most <= bufferBytes) { // fits the buffer however it is quoted: written in place
            ensure((int) most);
            putText(bytes, from, length);
            return;
        }
        // longer than the buffer takes: streamed through it, a run between quotes at a time
        int to = from + length;
        if (!needsQuotes(bytes, from, to)) {
            writeRaw(bytes, from, length);
            return;
        }
        ensure(1);
        buffer[size++] = QUOTE;
        int runStart = from;
        for (int i = from; i < to; i++) {
            if (bytes[i] == QUOTE) {
                writeRaw(bytes, runStart, i + 1 - runStart);
                runStart = i;
            }
        }
        writeRaw(bytes, runStart, to - runStart);
        ensure(1);
        buffer[size++] = QUOTE;
    }

    public void writeLong(long value) throws IOException {
        int start = startRendering();
        appendLong(value);
        endRendering(start);
    }

    public void writeDouble(double value) throws IOException {
        int start = startRendering();
        if (Double.isNaN(value)) {
            put(NAN);
        } else if (value == Double.POSITIVE_INFINITY) {
            put(INFINITY);
        } else if (value == Double.NEGATIVE_INFINITY) {
            put(MINUS_INFINITY);
        } else if (value == Math.rint(value) && Math.abs(value) < PLAIN_LIMIT) {
            if (value == 0 && 1 / value < 0) {
                buffer[size++] = '-';
            }
            appendLong((long) value);
            buffer[size++] = '.';
            buffer[size++] = '0';
        } else {
            String text = Double.toString(value);
            for (int i = 0; i < text.length(); i++) {
                buffer[size++] = (byte) text.charAt(i);
            }
        }
        endRendering(start);
    }

    public void writeBoolean(boolean value) throws IOException {
        int start = startRendering();
        put(value ? TRUE : FALSE);
        endRendering(start);
    }

    /**
     * Starts a number's or a boolean's field: the separator, then room for the longest rendering and two quotes, so
     * that the field is written whole into the buffer from the returned index (the rendering itself checks no room
     * and never drains the buffer, so {@link #endRendering} finds the field where it began).
     */
    private int startRendering() throws IOException {
        separate();
        ensure(LONGEST_RENDERING + 2);
        return size;
    }

    /**
     * Ends a number's or a boolean's field written from {@code start}: quoted when the delimiter can occur in such
     * renderings and does (a '-' delimiter and a negative number), so that the row reads back as written.
     */
    private void endRendering(int start) {
        if (renderingsMayHoldDelimiter) {
            endAsciiField(start, size);
        }
    }

    /**
     * Starts a field of at most {@code maxBytes} ASCII bytes (at most the 64-byte minimum buffer less 2) that the
     * caller formats straight into {@link #buffer()} from the returned index, then ends with
     * {@link #endAsciiField}: no copy and no object per field.
     */
    int startAsciiField(int maxBytes) throws IOException {
        separate();
        ensure(maxBytes + 2);
        return size;
    }

    /** The buffer a field started by {@link #startAsciiField} is formatted into. */
    byte[] buffer() {
        return buffer;
    }

    /** Ends the field formatted into {@code buffer()[start .. end)}, quoting it if it holds the delimiter. */
    void endAsciiField(int start, int end) {
        if (needsQuotes(buffer, start, end)) {
            System.arraycopy(buffer, start, buffer, start + 1, end - start);
            buffer[start] = QUOTE;
            buffer[end + 1] = QUOTE;
            end += 2;
        }
        size = end;
    }

    /**
     * Rows written by the unchecked {@code put…} methods ({@link #putDelimiter}, {@link #putLong}, {@link #putText},
     * {@link #putRowEnd}) instead of the {@code write…} ones, which check for room field by field: makes room for
     * {@code bytes}, at most, of such rows, writing out what the buffer holds if it must (so call it only where a row
     * ends). False when the buffer is too small for them: write those rows with the {@code write…} methods then.
     * Numbers go unquoted, so only when {@link #numbersNeedNoQuotes()}.
     */
    boolean reserveRows(long bytes) throws IOException {
        if (buffer.length - size >= bytes) {
            return true;
        }
        drain();
        return buffer.length >= bytes;
    }

    /** Whether no number holds the delimiter, so that {@link #putLong} needs no quotes. */
    boolean numbersNeedNoQuotes() {
        return !renderingsMayHoldDelimiter;
    }

    /** The most bytes {@link #putLong} writes. */
    static int maxLongBytes() {
        return MIN_LONG.length;
    }

    /** The most bytes {@link #putText} writes for a value of {@code length} bytes: every byte a quote, doubled. */
    static long maxTextBytes(long length) {
        return 2 * length + 2;
    }

    /** Writes the delimiter before a field other than a row's first, into room {@link #reserveRows} made. */
    void putDelimiter() {
        buffer[size++] = delimiter;
    }

    /** Writes a BIGINT's digits into room {@link #reserveRows} made (the delimiter must need no quotes). */
    void putLong(long value) {
        appendLong(value);
    }

    /**
     * Writes a text (non-NULL) value, quoted when it needs to be (see the class comment), into room for
     * {@link #maxTextBytes} of it ({@link #reserveRows}, or {@link #writeText}'s own).
     */
    void putText(byte[] bytes, int from, int length) {
        byte[] out = buffer;
        int at = size;
        int to = from + length;
        if (length == 0) {
            out[at++] = QUOTE;
            out[at++] = QUOTE;
        } else if (!needsQuotes(bytes, from, to)) {
            ByteWords.copy(bytes, from, out, at, length);
            at += length;
        } else {
            out[at++] = QUOTE;
            for (int i = from; i < to; i++) {
                byte b = bytes[i];
                out[at++] = b;
                if (b == QUOTE) {
                    out[at++] = QUOTE;
                }
            }
            out[at++] = QUOTE;
        }
        size = at;
    }

    /** Ends a row written into room {@link #reserveRows} made. */
    void putRowEnd() {
        buffer[size++] = '\n';
        rowsWritten++;
    }

    /** Ends the current row. */
    public void endRow() throws IOException {
        endLine();
        rowsWritten++;
        if (wholeRows && size >= bufferBytes) {
            drain();
        }
    }

    /** Data rows written so far. */
    public long rowsWritten() {
        return rowsWritten;
    }

    /** Writes out the buffer and flushes the stream. */
    public void flush() throws IOException {
        drain();
        out.flush();
    }

    private void endLine() throws IOException {
        ensure(1);
        buffer[size++] = '\n';
        firstField = true;
    }

    private boolean needsQuotes(byte[] bytes, int from, int to) {
        long d8 = delimiters;
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long word = ByteWords.word(bytes, i);
            if ((ByteWords.matches(word, d8) | ByteWords.matches(word, QUOTES)
                    | ByteWords.matches(word, ByteWords.LINE_FEEDS)
                    | ByteWords.matches(word, ByteWords.CARRIAGE_RETURNS)) != 0) {
                return true;
            }
        }
        byte d = delimiter;
        for (; i < to; i++) {
            byte b = bytes[i];
            if (b == d || b == QUOTE || b == '\n' || b == '\r') {
                return true;
            }
        }
        return false;
    }

    private void separate() throws IOException {
        if (firstField) {
            firstField = false;
            return;
        }
        ensure(1);
        buffer[size++] = delimiter;
    }

    /** Writes {@code value}'s digits into room {@link #startRendering} made. */
    private void appendLong(long value) {
        if (value == Long.MIN_VALUE) {
            put(MIN_LONG);
            return;
        }
        if (value < 0) {
            buffer[size++] = '-';
            value = -value;
        }
        int i = size + digitCount(value);
        size = i;
        while (value >= 100) {
            int pair = (int) (value % 100) * 2;
            value /= 100;
            buffer[--i] = DIGIT_PAIRS[pair + 1];
            buffer[--i] = DIGIT_PAIRS[pair];
        }
        if (value >= 10) {
            int pair = (int) value * 2;
            buffer[--i] = DIGIT_PAIRS[pair + 1];
            buffer[--i] = DIGIT_PAIRS[pair];
        } else {
            buffer[--i] = (byte) ('0' + value);
        }
    }

    /**
     * The decimal digits of the non-negative {@code value}: its bit length times log10(2) (1233 / 4096) is the digit
     * count or one less, which one comparison tells.
     */
    private static int digitCount(long value) {
        long v = value | 1;
        int estimate = ((Long.SIZE - Long.numberOfLeadingZeros(v)) * 1233) >>> 12;
        return estimate + (v >= POWERS_OF_TEN[estimate] ? 1 : 0);
    }

    /** Copies a rendering's {@code bytes} into room {@link #startRendering} made. */
    private void put(byte[] bytes) {
        System.arraycopy(bytes, 0, buffer, size, bytes.length);
        size += bytes.length;
    }

    private void writeRaw(byte[] bytes, int from, int length) throws IOException {
        if (wholeRows) {
            ensure(length);
        } else if (length > buffer.length - size) {
            drain();
            if (length > buffer.length) {
                out.write(bytes, from, length);
                return;
            }
        }
        ByteWords.copy(bytes, from, buffer, size, length);
        size += length;
    }

    private void ensure(int bytes) throws IOException {
        if (buffer.length - size >= bytes) {
            return;
        }
        if (wholeRows) {
            long needed = (long) size + bytes;
            if (needed > MAX_ARRAY_BYTES) {
                throw new IOException("a result row takes more than " + MAX_ARRAY_BYTES + " bytes as CSV");
            }
            buffer = Arrays.copyOf(buffer, (int) Math.min(MAX_ARRAY_BYTES, Math.max(2L * buffer.length, needed)));
        } else {
            drain();
        }
    }

    /**
     * Writes the buffer out. Also the writer's interruption point (once per buffer): streams from
     * {@code Files.newOutputStream} are not interruptible on Java 17, so Ctrl-C is noticed here.
     */
    private void drain() throws IOException {
        if (Thread.currentThread().isInterrupted()) {
            throw new InterruptedIOException("interrupted while writing CSV");
        }
        if (size > 0) {
            out.write(buffer, 0, size);
            size = 0;
        }
        if (buffer.length > 2 * bufferBytes) {
            buffer = new byte[bufferBytes]; // a long row grew it; the next rows need no more than before
        }
    }
}
