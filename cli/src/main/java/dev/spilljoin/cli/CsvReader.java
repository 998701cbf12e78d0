package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.spill.ByteSize;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * A streaming RFC 4180 CSV reader over bytes that fills {@link CsvChunk}s: no String or object per field.
 *
 * <p>Algorithm: the file is read through a {@link SeekableByteChannel} into one large buffer (1 MiB); each
 * record is parsed by scanning that buffer in tight loops (unquoted field: up to the delimiter, CR or LF;
 * quoted field: up to the next quote) and copying whole runs of bytes into the chunk's column arrays. A field
 * may span buffer refills, since every byte before the scan position has already been copied.
 *
 * <p>Rules:
 * <ul>
 *   <li>Records end at LF, CR or CRLF, also mixed; a line end inside quotes is part of the field.</li>
 *   <li>A quoted field may hold the delimiter, line ends and doubled quotes ({@code ""} is one quote). After
 *       the closing quote only the delimiter, a line end or the end of the file may follow. A quote inside an
 *       unquoted field is taken literally.</li>
 *   <li>An unquoted empty field is NULL; a quoted empty field {@code ""} is the empty string (PostgreSQL's
 *       COPY … CSV convention).</li>
 *   <li>A UTF-8 byte order mark at the start is skipped; all other bytes pass through untouched.</li>
 *   <li>The first record is the header unless the format says there is none; then columns are named
 *       {@code column1}, {@code column2}, … and the first record is data. The column count is the field count of
 *       the first line that is not blank (blank lines before it count no columns); a later record with another
 *       count is malformed.</li>
 *   <li>A blank line is skipped when there are several columns (it cannot be a record); with one column it
 *       is a record holding NULL, as PostgreSQL reads it.</li>
 *   <li>Typed key columns are parsed as each record ends ({@link ValueParser}); an empty string in a
 *       BIGINT/INTEGER/DOUBLE/BOOLEAN key or a key read as exact number text is read as NULL, as type inference
 *       ignores empty strings too. A key read as exact number text ({@link NumberText}) is checked against its
 *       grammar and its bytes replaced by its canonical text.</li>
 *   <li>Header names are decoded by {@link RawText}, so that bytes that are not UTF-8 survive to the output.</li>
 *   <li>A record of more field bytes than the chunk's row limit ({@link BatchSizing#maxRowBytes()}, from the
 *       heap) is malformed; it is read to its end to measure it, but not held.</li>
 *   <li>A malformed record (unclosed quote at the end of the file, characters after a closing quote, a wrong
 *       field count, a key value not fitting its type, a row too large) throws {@link InputException} naming the
 *       file, the line where the record starts and the column; with {@link OnError#SKIP} it is dropped and counted
 *       instead.</li>
 * </ul>
 * Line numbers are physical: a line end inside quotes counts, and CRLF counts once.
 */
public final class CsvReader implements AutoCloseable {
    public static final int DEFAULT_BUFFER_BYTES = 1 << 20;
    private static final byte CR = '\r';
    private static final byte LF = '\n';
    private static final byte QUOTE = CsvFormat.QUOTE;
    private static final int RECORD = 0;
    private static final int END = 1;
    private static final int MALFORMED = 2;
    private static final byte[] ZERO = {'0'};

    private final Path file;
    private final String fileName;
    private ReadableByteChannel channel;
    private final byte delimiter;
    /** The delimiter in each byte of a long. */
    private final long delimiters;
    private final boolean hasHeader;
    private final OnError onError;
    private final byte[] buffer;
    private final ByteBuffer window;
    private final String[] columnNames;
    private ColumnType[] types;
    private NumberText[] numberText;
    /** Per column, the parser of a key read as a Parquet partner's logical type, else null. */
    private LogicalValueParser[] logical;
    private String[] textHints;
    private int[] parsedColumns;
    private final ValueParser parser = new ValueParser();
    private final byte[] digits = new byte[ValueParser.MAX_INTEGRAL_DIGITS];
    private int pos;
    private int limit;
    private boolean endOfInput;
    private long line = 1;
    private boolean learning;
    private long rowsRead;
    private long rowsSkipped;
    private String problem;
    private long problemLine;

    /** Opens {@code file} with every column read as text. */
    public CsvReader(Path file, CsvFormat format, OnError onError) {
        this(file, format, onError, null, DEFAULT_BUFFER_BYTES);
    }

    /**
     * Opens {@code file}, reads its header (or learns the column count from the first record), and positions
     * at the first data record. {@code keyTypes[c]} is the type column {@code c} is parsed as, or null for
     * text; a null array reads every column as text. {@code bufferBytes} is the read buffer size.
     */
    public CsvReader(Path file, CsvFormat format, OnError onError, ColumnType[] keyTypes, int bufferBytes) {
        this(file, format, onError, bufferBytes, keyTypes == null ? null : KeyReading.of(keyTypes));
    }

    /** Opens {@code file} with its key columns read as {@code keys} says (null: every column as text). */
    static CsvReader open(Path file, CsvFormat format, OnError onError, KeyReading keys, int bufferBytes) {
        return new CsvReader(file, format, onError, bufferBytes, keys);
    }

    private CsvReader(Path file, CsvFormat format, OnError onError, int bufferBytes, KeyReading keys) {
        this.fileName = InputStreams.isStandardInput(file) ? "standard input" : file.toString();
        this.delimiter = format.delimiter();
        this.delimiters = ByteWords.repeated(delimiter);
        this.hasHeader = format.header();
        this.onError = onError;
        this.buffer = new byte[Math.max(bufferBytes, 16)];
        this.window = ByteBuffer.wrap(buffer);
        this.file = file;
        this.channel = open(file);
        try {
            long bomLength = skipByteOrderMark();
            CsvChunk first = new CsvChunk(new ColumnType[0], 1);
            learning = true;
            readFirstRecord(first);
            learning = false;
            int count = first.columns();
            columnNames = new String[count];
            for (int c = 0; c < count; c++) {
                String name = !format.header() || first.isNull(c, 0) ? null
                        : RawText.decode(first.bytes(c), first.start(c, 0), first.length(c, 0));
                columnNames[c] = name == null || name.isEmpty() ? "column" + (c + 1) : name;
            }
            if (!format.header()) {
                rewind(bomLength);
                pos = 0;
                limit = 0;
                endOfInput = false;
                line = 1;
            }
            readKeysAs(keys == null ? KeyReading.of(new ColumnType[count]) : keys);
        } catch (IOException e) {
            closeQuietly();
            throw readFailed(e);
        } catch (RuntimeException e) {
            closeQuietly();
            throw e;
        }
    }

    public String fileName() {
        return fileName;
    }

    /**
     * From the next row on, reads the key columns as {@code keys} says: for an input opened once for both the plan
     * and the join (a pipe), whose key types are known only after its header was read.
     */
    void readKeysAs(KeyReading keys) {
        if (keys.columns() != columnNames.length) {
            throw new IllegalArgumentException(fileName + " has " + columnNames.length + " columns, but "
                    + keys.columns() + " types were given");
        }
        types = keys.types().clone();
        numberText = keys.numberText().clone();
        logical = new LogicalValueParser[types.length];
        for (int c = 0; c < types.length; c++) {
            logical[c] = keys.logical()[c] == null ? null : LogicalValueParser.of(keys.logical()[c]);
        }
        textHints = keys.textHints().clone();
        parsedColumns = parsedColumns(types, numberText, logical);
    }

    /** The column names: the header's, or column1, column2, … without one. */
    public String[] columnNames() {
        return columnNames.clone();
    }

    public int columnCount() {
        return columnNames.length;
    }

    /**
     * A chunk of up to {@code capacity} rows shaped for this reader's columns and key types: fewer when the rows
     * are wide, so that its arrays stay near {@link BatchSizing#TARGET_BYTES} ({@link BatchSizing#rows}).
     */
    public CsvChunk newChunk(int capacity) {
        return newChunk(capacity, BatchSizing.TARGET_BYTES);
    }

    /** As {@link #newChunk(int)}, its arrays and its field bytes near {@code targetBytes} instead. */
    CsvChunk newChunk(int capacity, int targetBytes) {
        return new CsvChunk(types, BatchSizing.rows(types.length, capacity, targetBytes), BatchSizing.maxRowBytes(),
                targetBytes);
    }

    /** Data records read so far (skipped ones excluded). */
    public long rowsRead() {
        return rowsRead;
    }

    /** Malformed records skipped so far under {@link OnError#SKIP}. */
    public long rowsSkipped() {
        return rowsSkipped;
    }

    /**
     * Clears {@code chunk} and fills it with the next records, up to its capacity or until its field bytes reach
     * its {@link CsvChunk#targetBytes()}.
     * Returns false when no record was left. An interrupted thread gets an {@link InputException} caused by an
     * {@link InterruptedIOException} (the command maps it to exit 130).
     */
    public boolean read(CsvChunk chunk) {
        chunk.clear();
        try {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedIOException("interrupted while reading " + fileName);
            }
            while (chunk.rows() < chunk.capacity() && chunk.byteSize() < chunk.targetBytes()) {
                int status = readRecord(chunk);
                if (status == END) {
                    break;
                }
                if (status == RECORD) {
                    chunk.commitRow();
                    rowsRead++;
                } else if (onError == OnError.SKIP) {
                    rowsSkipped++;
                } else {
                    // a key value's problem beside a Parquet partner already says to skip such rows
                    throw new InputException(fileName + " line " + problemLine + ": " + problem
                            + (problem.contains("--on-error skip") ? ""
                            : " (or pass --on-error skip to skip and count such rows)"));
                }
            }
        } catch (IOException e) {
            throw readFailed(e);
        }
        return chunk.rows() > 0;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw readFailed(e);
        }
    }

    // ---- record parsing ----

    private void readFirstRecord(CsvChunk first) throws IOException {
        int status = readRecord(first);
        boolean blankLines = line > 1;
        if (status == END && blankLines && !hasHeader) {
            // Only blank lines, which the learning pass skips: one column, each line a record holding NULL (as
            // the data pass reads them, and as blank lines before a first one-field record are read).
            first.addColumn(null);
            return;
        }
        if (status == END) {
            throw new InputException(fileName + (blankLines ? " holds only blank lines" : " is empty")
                    + ": expected a header line or a first record; give a CSV file with at least one line");
        }
        if (status == MALFORMED) {
            throw new InputException(fileName + " line " + problemLine + ": " + problem);
        }
    }

    /** Parses one record into the open row of {@code chunk}; RECORD, END (no more input) or MALFORMED. */
    private int readRecord(CsvChunk chunk) throws IOException {
        while (true) {
            if (pos == limit && !fill()) {
                return END;
            }
            byte first = buffer[pos];
            if ((first == CR || first == LF) && (learning || chunk.columns() > 1)) {
                consumeLineEnd();
                continue;
            }
            break;
        }
        long recordLine = line;
        chunk.beginRow(recordLine);
        int fields = 0;
        while (true) {
            int c = fields;
            if (learning && c == chunk.columns()) {
                chunk.addColumn(null);
            }
            boolean store = c < chunk.columns();
            fields++;
            if (pos == limit && !fill()) {
                if (store) {
                    chunk.endField(c, true);
                }
                break;
            }
            if (buffer[pos] == QUOTE) {
                long quoteLine = line;
                pos++;
                if (!readQuoted(chunk, c, store)) {
                    return malformed(recordLine, "the quote opened in column " + (c + 1) + columnLabel(c)
                            + " on line " + quoteLine + " is never closed; close it (a quote inside a quoted field"
                            + " is written twice: \"\")");
                }
                if (store) {
                    chunk.endField(c, false);
                }
                if (pos == limit && !fill()) {
                    break;
                }
                byte next = buffer[pos];
                if (next == delimiter) {
                    pos++;
                    continue;
                }
                if (next == CR || next == LF) {
                    consumeLineEnd();
                    break;
                }
                skipRestOfRecord();
                return malformed(recordLine, "unexpected character after the closing quote in column " + (c + 1)
                        + columnLabel(c) + "; quote the whole field and double any quote inside it");
            }
            boolean empty = readUnquoted(chunk, c, store);
            if (store) {
                chunk.endField(c, empty);
            }
            if (pos == limit) {
                break;
            }
            if (buffer[pos] == delimiter) {
                pos++;
                continue;
            }
            consumeLineEnd();
            break;
        }
        if (chunk.openRowTooLarge()) {
            return malformed(recordLine, rowTooLarge(chunk));
        }
        if (learning) {
            return RECORD;
        }
        if (fields != chunk.columns()) {
            return malformed(recordLine, "found " + fields + (fields == 1 ? " field" : " fields") + ", expected "
                    + chunk.columns() + " like the " + (hasHeader ? "header" : "first record")
                    + "; check the delimiter and the quoting of that line");
        }
        return parseKeys(chunk, recordLine);
    }

    /** Copies an unquoted field's bytes; stops at the delimiter, a line end or the end of input. */
    private boolean readUnquoted(CsvChunk chunk, int c, boolean store) throws IOException {
        boolean empty = true;
        byte d = delimiter;
        long d8 = delimiters;
        while (true) {
            byte[] buf = buffer;
            int lim = limit;
            int start = pos;
            int p = start;
            // eight bytes at a time, then the tail byte by byte (which stops at once on a stop byte found by words)
            for (; p + Long.BYTES <= lim; p += Long.BYTES) {
                long word = ByteWords.word(buf, p);
                long mask = ByteWords.matches(word, d8) | ByteWords.matches(word, ByteWords.LINE_FEEDS)
                        | ByteWords.matches(word, ByteWords.CARRIAGE_RETURNS);
                if (mask != 0) {
                    p += ByteWords.firstMatch(mask);
                    break;
                }
            }
            while (p < lim) {
                byte x = buf[p];
                if (x == d || x == LF || x == CR) {
                    break;
                }
                p++;
            }
            if (p > start) {
                empty = false;
                if (store) {
                    chunk.append(c, buf, start, p - start);
                }
            }
            pos = p;
            if (p < lim || !fill()) {
                return empty;
            }
        }
    }

    /**
     * Copies a quoted field's content (the opening quote is consumed) and consumes the closing quote; false when
     * the input ends before the quote is closed. Counts line ends inside the quotes.
     */
    private boolean readQuoted(CsvChunk chunk, int c, boolean store) throws IOException {
        boolean afterCr = false;
        while (true) {
            if (pos == limit && !fill()) {
                return false;
            }
            byte[] buf = buffer;
            int lim = limit;
            int start = pos;
            int p = start;
            while (p < lim) {
                byte x = buf[p];
                if (x == QUOTE) {
                    break;
                }
                if (x == CR) {
                    line++;
                    afterCr = true;
                } else {
                    if (x == LF && !afterCr) {
                        line++;
                    }
                    afterCr = false;
                }
                p++;
            }
            if (store && p > start) {
                chunk.append(c, buf, start, p - start);
            }
            pos = p;
            if (p == lim) {
                continue;
            }
            pos++;
            if (pos == limit && !fill()) {
                return true;
            }
            if (buffer[pos] != QUOTE) {
                return true;
            }
            if (store) {
                chunk.appendByte(c, QUOTE);
            }
            pos++;
            afterCr = false;
        }
    }

    /** Parses the open row's typed key fields; MALFORMED when one does not fit its type. */
    private int parseKeys(CsvChunk chunk, long recordLine) {
        int row = chunk.rows();
        for (int c : parsedColumns) {
            if (chunk.isNull(c, row)) {
                continue;
            }
            byte[] b = chunk.bytes(c);
            int from = chunk.openStart(c);
            int to = chunk.openEnd(c);
            if (from == to) {
                chunk.markNull(c);
                continue;
            }
            LogicalValueParser stored = logical[c];
            if (stored != null) {
                if (!stored.parse(b, from, to)) {
                    return notFitting(recordLine, c, b, from, to, stored.expected());
                }
                if (stored.isBytes()) {
                    chunk.replaceOpenField(c, stored.bytes, stored.length);
                } else {
                    chunk.setLong(c, stored.value);
                }
                continue;
            }
            NumberText text = numberText[c];
            if (text != null) {
                if (!readNumberText(chunk, c, b, from, to, text)) {
                    return notFitting(recordLine, c, b, from, to, text == NumberText.INTEGER ? "an integer"
                            : text == NumberText.BIGINT_RANGE ? "a BIGINT" : "a DOUBLE");
                }
                continue;
            }
            ColumnType type = types[c];
            boolean fits = switch (type) {
                case BIGINT -> parser.parseBigint(b, from, to);
                case INTEGER -> parser.parseInteger(b, from, to);
                case DOUBLE -> parser.parseDouble(b, from, to);
                case BOOLEAN -> parser.parseBoolean(b, from, to);
                case VARCHAR, VARBINARY -> throw new AssertionError("byte keys are not parsed");
            };
            if (!fits) {
                return notFitting(recordLine, c, b, from, to, article(type) + " " + type.name());
            }
            switch (type) {
                case BIGINT, INTEGER -> chunk.setLong(c, parser.longValue);
                case DOUBLE -> chunk.setDouble(c, parser.doubleValue);
                case BOOLEAN -> chunk.setBoolean(c, parser.booleanValue);
                default -> throw new AssertionError(type);
            }
        }
        return RECORD;
    }

    /**
     * Checks a key field read as exact number text against its grammar and replaces it by its canonical text
     * ({@link NumberText}); false when it does not follow the grammar.
     */
    private boolean readNumberText(CsvChunk chunk, int c, byte[] b, int from, int to, NumberText text) {
        switch (text) {
            case INTEGER, BIGINT_RANGE -> {
                if (!(text == NumberText.INTEGER ? parser.parseIntegerText(b, from, to) : parser.parseBigint(b, from, to))) {
                    return false;
                }
                if (to - from == 2 && b[from] == '-' && b[from + 1] == '0') {
                    chunk.replaceOpenField(c, ZERO, 1);
                }
            }
            case DECIMAL -> {
                if (!parser.parseDouble(b, from, to)) {
                    return false;
                }
                int length = parser.integralDigits(b, from, to, digits);
                if (length >= 0 && !Arrays.equals(digits, 0, length, b, from, to)) {
                    chunk.replaceOpenField(c, digits, length);
                }
            }
        }
        return true;
    }

    private int notFitting(long recordLine, int c, byte[] b, int from, int to, String what) {
        String hint = textHints[c] != null ? textHints[c]
                : "read it as text on both sides (--schema-left and --schema-right '" + columnNames[c] + ":varchar')";
        return malformed(recordLine, "value '" + excerpt(b, from, to) + "' in column " + (c + 1) + columnLabel(c)
                + " is not " + what + "; fix the value, or " + hint);
    }

    private int malformed(long recordLine, String message) {
        problem = message;
        problemLine = recordLine;
        return MALFORMED;
    }

    private String columnLabel(int c) {
        return columnNames == null || c >= columnNames.length ? "" : " ('" + columnNames[c] + "')";
    }

    private static String article(ColumnType type) {
        return type == ColumnType.INTEGER ? "an" : "a";
    }

    private static String excerpt(byte[] b, int from, int to) {
        int length = Math.min(to - from, 40);
        String text = RawText.decode(b, from, length);
        return to - from > length ? text + "…" : text;
    }

    /** Consumes one line end at {@code pos}: LF, CR or CRLF. */
    private void consumeLineEnd() throws IOException {
        byte x = buffer[pos++];
        line++;
        if (x == CR && (pos < limit || fill()) && buffer[pos] == LF) {
            pos++;
        }
    }

    /** After a malformed field: skips to the end of the physical line, ignoring quotes. */
    private void skipRestOfRecord() throws IOException {
        while (pos < limit || fill()) {
            byte x = buffer[pos];
            if (x == CR || x == LF) {
                consumeLineEnd();
                return;
            }
            pos++;
        }
    }

    // ---- input ----

    private boolean fill() throws IOException {
        if (endOfInput) {
            return false;
        }
        window.clear();
        int n;
        do {
            n = channel.read(window);
        } while (n == 0);
        pos = 0;
        if (n < 0) {
            limit = 0;
            endOfInput = true;
            return false;
        }
        limit = n;
        return true;
    }

    /**
     * Reads the first bytes and skips a UTF-8 BOM; returns the BOM's length (0 or 3). Input that starts as gzip,
     * zstd or Parquet data does not start as CSV text (a control byte, or bytes that are not UTF-8, in its first
     * five): it is refused naming what it is and how to read it, rather than read as one garbled column.
     */
    private long skipByteOrderMark() throws IOException {
        window.clear();
        while (window.position() < 5) {
            if (channel.read(window) < 0) {
                break;
            }
        }
        pos = 0;
        limit = window.position();
        endOfInput = limit == 0;
        String binary = binaryFormat();
        if (binary != null) {
            throw new InputException(fileName + " holds " + binary);
        }
        if (limit >= 3 && buffer[0] == (byte) 0xEF && buffer[1] == (byte) 0xBB && buffer[2] == (byte) 0xBF) {
            pos = 3;
            return 3;
        }
        return 0;
    }

    /** What the first bytes say the input is, with how to read it, when they start gzip, zstd or Parquet data. */
    private String binaryFormat() {
        if (startsWith(0x1f, 0x8b)) {
            return "gzip-compressed data, not CSV text: name the file *.csv.gz, or decompress it on the way in ('<(zcat FILE)')";
        }
        if (startsWith(0x28, 0xb5, 0x2f, 0xfd)) {
            return "zstd-compressed data, not CSV text: name the file *.csv.zst, or decompress it on the way in"
                    + " ('<(zstd -dc FILE)')";
        }
        if (startsWith('P', 'A', 'R', '1', 0x15)) { // the magic, then the first page header's first field
            return "Parquet data, not CSV text: name the file *.parquet, or give --left-format/--right-format parquet";
        }
        return null;
    }

    private boolean startsWith(int... bytes) {
        if (limit < bytes.length) {
            return false;
        }
        for (int i = 0; i < bytes.length; i++) {
            if ((buffer[i] & 0xFF) != bytes[i]) {
                return false;
            }
        }
        return true;
    }

    private static int[] parsedColumns(ColumnType[] types, NumberText[] numberText, LogicalValueParser[] logical) {
        return IntStream.range(0, types.length)
                .filter(c -> types[c] != null
                        && (!types[c].isVariableWidth() || numberText[c] != null || logical[c] != null))
                .toArray();
    }

    /** Starts reading again at byte {@code offset} of the (uncompressed) input; a pipe cannot (the plan refuses). */
    private void rewind(long offset) throws IOException {
        if (InputStreams.isPipe(file)) {
            throw new IllegalStateException("cannot rewind the pipe " + fileName);
        }
        if (channel instanceof SeekableByteChannel seekable) {
            seekable.position(offset);
            return;
        }
        channel.close();
        channel = open(file);
        ByteBuffer skipped = ByteBuffer.allocate((int) offset);
        while (skipped.hasRemaining()) {
            if (channel.read(skipped) < 0) {
                break;
            }
        }
    }

    /** The file's bytes: a channel on it, or on its decompressed stream ({@link CsvCompression}, by extension). */
    private ReadableByteChannel open(Path file) {
        if (Files.isDirectory(file)) {
            throw new InputException(fileName + " is a directory, not a CSV file, and holds no Parquet part file"
                    + " (.parquet) of its own (subdirectories, such as Hive partitions key=value/, are not read); give"
                    + " a CSV file, or a Parquet file, directory of part files or glob");
        }
        try {
            CsvCompression compression = CsvCompression.of(file);
            ReadableByteChannel raw = InputStreams.isStandardInput(file) ? Channels.newChannel(System.in)
                    : InputStreams.isPipe(file) ? Channels.newChannel(new FileInputStream(file.toFile()))
                    : Files.newByteChannel(file, StandardOpenOption.READ);
            if (compression == CsvCompression.NONE) {
                return raw;
            }
            try {
                return Channels.newChannel(compression.decompress(Channels.newInputStream(raw)));
            } catch (IOException | RuntimeException e) {
                raw.close();
                throw e;
            }
        } catch (NoSuchFileException e) {
            throw new InputException(fileName + " does not exist; check the path", e);
        } catch (AccessDeniedException e) {
            throw new InputException("cannot read " + fileName + ": permission denied; check its permissions", e);
        } catch (IOException e) {
            throw readFailed(e);
        }
    }

    /**
     * The problem of a record whose field bytes passed the chunk's row limit: its real size, its largest field's
     * column and size, and the heap that would take it.
     */
    private String rowTooLarge(CsvChunk chunk) {
        int largest = 0;
        for (int c = 1; c < chunk.columns(); c++) {
            if (chunk.openFieldBytes(c) > chunk.openFieldBytes(largest)) {
                largest = c;
            }
        }
        long size = chunk.openRowBytes();
        String what = "the row holds " + size + " bytes (" + ByteSize.format(size) + "; column " + (largest + 1)
                + columnLabel(largest) + " alone " + chunk.openFieldBytes(largest) + "), more than the largest row"
                + " taken, " + ByteSize.format(chunk.maxRowBytes()) + " (1/" + BatchSizing.HEAP_SHARE_PER_ROW
                + " of the Java heap of " + BatchSizing.heapNow() + ")";
        return what + (size > BatchSizing.maxRowBytes(Long.MAX_VALUE) ? "; rows that large are not supported"
                : "; if the row is right, give the JVM a larger heap, e.g. SPILLJOIN_HEAP=" + BatchSizing.heapFor(size)
                        + " with bin/spilljoin (java -Xmx otherwise); if not, check for a quote left open");
    }

    /** A read failure as one line: the compressed data's damage ({@link CsvCompression#damage}), else the error's. */
    private InputException readFailed(IOException e) {
        String damage = CsvCompression.of(file).damage(e, file);
        return new InputException("cannot read " + fileName + ": " + (damage != null ? damage
                : e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()), e);
    }

    private void closeQuietly() {
        try {
            channel.close();
        } catch (IOException e) {
            // the original failure is the one to report
        }
    }

    @Override
    public String toString() {
        return "CsvReader[" + fileName + ", columns=" + Arrays.toString(columnNames) + "]";
    }
}
