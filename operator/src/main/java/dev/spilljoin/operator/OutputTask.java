package dev.spilljoin.operator;

import dev.spilljoin.operator.table.OutputWriter;

import java.io.IOException;

/**
 * A resumable producer of result rows: {@link #fill} appends to the output until it is done (true) or the output
 * is full (false: hand the batch out, clear it, call again). It materializes its rows before returning.
 */
interface OutputTask extends AutoCloseable {
    boolean fill(OutputWriter out) throws IOException;

    /** Releases the task's memory and files; idempotent. */
    @Override
    void close() throws IOException;
}
