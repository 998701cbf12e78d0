package dev.spilljoin.cli;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import java.util.zip.ZipException;

/**
 * The uncompressed bytes of a gzip file (RFC 1952): its members one after another, as {@code gzip -d} gives them,
 * and nothing else. Unlike {@link java.util.zip.GZIPInputStream}, which ends quietly at bytes after a member that do
 * not start a valid one (and, on a pipe, at a next member it sees no bytes of yet, since it asks
 * {@code available()}), bytes after the last member are refused ({@link TrailingDataException}, with their offset).
 *
 * <p>Algorithm: read a member's header (magic, method 8, flags: the extra field, name and comment skipped, the
 * header CRC checked); inflate the raw deflate data ({@link Inflater} without zlib wrapping) into the caller's
 * buffer, keeping its CRC-32 and length; at the deflate stream's end, check the trailer (CRC-32, length modulo
 * 2^32). Then the end of the file ends the stream, and anything else must be the next member's header.
 *
 * <p>Invariants: {@code buffer[position..limit)} holds the file's next bytes not yet given to the inflater or read
 * as a header or trailer, and {@code offset} is the file offset of {@code buffer[0]}; a file that ends inside a
 * member (an empty one included) fails with an {@link EOFException}, corrupt data with a {@link ZipException}.
 */
final class GzipMembers extends InputStream {
    private static final int MAGIC_1 = 0x1f;
    private static final int MAGIC_2 = 0x8b;
    private static final int DEFLATE = 8;
    private static final int FLAG_HEADER_CRC = 2;
    private static final int FLAG_EXTRA = 4;
    private static final int FLAG_NAME = 8;
    private static final int FLAG_COMMENT = 16;
    private static final int FLAGS_RESERVED = 0xE0;

    /** Bytes after a gzip file's last member that do not start another: refused, with where they start. */
    static final class TrailingDataException extends ZipException {
        private final long offset;

        TrailingDataException(long offset) {
            super("bytes after the last gzip member, from byte " + offset);
            this.offset = offset;
        }

        /** The file offset of the first byte after the last member. */
        long offset() {
            return offset;
        }
    }

    private final InputStream in;
    private final byte[] buffer;
    private final Inflater inflater = new Inflater(true);
    private final CRC32 dataCrc = new CRC32();
    private final CRC32 headerCrc = new CRC32();
    private final byte[] single = new byte[1];
    private int position;
    private int limit;
    private long offset;
    private int members;
    private boolean inMember;
    private boolean ended;

    GzipMembers(InputStream in, int bufferBytes) {
        this.in = in;
        this.buffer = new byte[bufferBytes];
    }

    @Override
    public int read() throws IOException {
        return read(single, 0, 1) < 0 ? -1 : single[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (!ended) {
            if (!inMember) {
                startMember();
                continue;
            }
            int n;
            try {
                n = inflater.inflate(b, off, len);
            } catch (DataFormatException e) {
                throw new ZipException(e.getMessage() + ", in the gzip member " + members);
            }
            if (n > 0) {
                dataCrc.update(b, off, n);
                return n;
            }
            if (inflater.finished()) {
                position = limit - inflater.getRemaining();
                endMember();
            } else if (inflater.needsDictionary()) {
                throw new ZipException("the gzip member " + members + " asks for a preset dictionary");
            } else if (inflater.needsInput()) {
                if (position == limit && !fill()) {
                    throw new EOFException();
                }
                inflater.setInput(buffer, position, limit - position);
                position = limit;
            }
        }
        return -1;
    }

    /** At the end of the file: the stream's end (after one member at least); else the next member's header. */
    private void startMember() throws IOException {
        if (position == limit && !fill()) {
            if (members == 0) {
                throw new EOFException();
            }
            ended = true;
            return;
        }
        long start = offset + position;
        headerCrc.reset();
        if (headerByte() != MAGIC_1 || headerByte() != MAGIC_2) {
            if (members > 0) {
                throw new TrailingDataException(start);
            }
            throw new ZipException("Not in GZIP format");
        }
        if (headerByte() != DEFLATE) {
            throw new ZipException("unsupported compression method in the gzip header at byte " + start);
        }
        int flags = headerByte();
        if ((flags & FLAGS_RESERVED) != 0) {
            throw new ZipException("reserved flags set in the gzip header at byte " + start);
        }
        for (int i = 0; i < 6; i++) {
            headerByte(); // modification time, extra flags, operating system
        }
        if ((flags & FLAG_EXTRA) != 0) {
            int length = headerByte() | headerByte() << 8;
            for (int i = 0; i < length; i++) {
                headerByte();
            }
        }
        if ((flags & FLAG_NAME) != 0) {
            skipZeroTerminated();
        }
        if ((flags & FLAG_COMMENT) != 0) {
            skipZeroTerminated();
        }
        if ((flags & FLAG_HEADER_CRC) != 0) {
            int expected = (int) headerCrc.getValue() & 0xFFFF;
            if ((nextByte() | nextByte() << 8) != expected) {
                throw new ZipException("Corrupt GZIP header at byte " + start);
            }
        }
        inflater.reset();
        dataCrc.reset();
        inMember = true;
        members++;
    }

    /** Skips a header's zero-terminated name or comment, its zero included. */
    private void skipZeroTerminated() throws IOException {
        int b;
        do {
            b = headerByte();
        } while (b != 0);
    }

    /** Checks the member's trailer against the data it gave. */
    private void endMember() throws IOException {
        long crc = nextUInt();
        long size = nextUInt();
        if (crc != dataCrc.getValue() || size != (inflater.getBytesWritten() & 0xFFFFFFFFL)) {
            throw new ZipException("Corrupt GZIP trailer of the gzip member " + members);
        }
        inMember = false;
    }

    private long nextUInt() throws IOException {
        return nextByte() | nextByte() << 8 | nextByte() << 16 | (long) nextByte() << 24;
    }

    private int headerByte() throws IOException {
        int b = nextByte();
        headerCrc.update(b);
        return b;
    }

    /** The file's next byte; a file that ends here ends inside a member. */
    private int nextByte() throws IOException {
        if (position == limit && !fill()) {
            throw new EOFException();
        }
        return buffer[position++] & 0xFF;
    }

    /** Reads more of the file into the buffer, all of whose bytes were taken; false at its end. */
    private boolean fill() throws IOException {
        offset += limit;
        position = 0;
        limit = 0;
        int n = in.read(buffer, 0, buffer.length);
        if (n <= 0) {
            return false;
        }
        limit = n;
        return true;
    }

    @Override
    public void close() throws IOException {
        inflater.end();
        in.close();
    }
}
