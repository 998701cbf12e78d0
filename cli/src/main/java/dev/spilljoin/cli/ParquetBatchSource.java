package dev.spilljoin.cli;

import dev.spilljoin.operator.Side;
import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.Schema;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.schema.MessageType;

/**
 * A Parquet input ({@link ParquetInput}: its part files in order) as the join's batches, decoded column by column.
 *
 * <p>Algorithm: for each part file (one channel, its footer read once at planning), for each row group, a
 * {@link ColumnChunkReader} per projected column (projection pushdown: the other chunks are never read) decodes the
 * chunk's pages, which {@link RowGroupPages} reads from the file one page at a time as the reader needs them
 * (parquet-column's decoders, dictionary and plain alike). A batch of up to {@link BatchSizing#MAX_ROWS} rows is
 * filled one column at a time, each value's definition level (below the column's maximum: NULL) and its value read
 * straight into the vector's array. No object per value except where parquet-column itself makes one: a
 * {@code Binary} for a plain-encoded byte array value (which the JIT's escape analysis usually removes; dictionary
 * values are decoded once per chunk, and those of byte values copied from one flat array). A batch may span
 * row groups and part files.
 *
 * <p>Memory, whatever the row-group size: per projected column one page, compressed and decompressed (each at most
 * {@link ColumnChunkPages#MAX_PAGE_BYTES}), its dictionary and a {@value PageBuffers#INPUT_BYTES}-byte read
 * buffer, all on the heap; the batch itself is the pipeline's, as for CSV. A key compared in its partner's unit is
 * scaled to it as read ({@link KeyScale}). Its size hints are the footers' total
 * bytes and rows, so the join builds on the smaller input. A page that cannot be decoded is an
 * {@link InputException} naming the file (and the column, {@link ColumnChunkPages}). Positions in messages are "part file row N" (1-based within the part file).
 */
final class ParquetBatchSource implements InputBatches {
    private final Side side;
    private final ParquetInput input;
    private final Schema schema;
    private final ProgressLine progress;
    private final int batchRows;
    private Batch batch;
    private long[] positions;

    private int fileIndex = -1;
    private int groupIndex;
    private FileChannel channel;
    private String createdBy;
    private ColumnDescriptor[] descriptors;
    private final ColumnChunkReader[] columns;
    /** Per column, how its values are brought to the key partner's unit as read ({@link KeyScale}), or null. */
    private final KeyScale[] scales;
    /** Per column, its page buffers, from one row group and part file to the next. */
    private final PageBuffers[] pageBuffers;
    /** Rows left in the current row group, and the part-file row of the next row (0-based). */
    private long groupRowsLeft;
    private long nextRow;
    private long rowsRead;

    ParquetBatchSource(Side side, InputSide input, ProgressLine progress, int batchBytes) {
        this.side = side;
        this.input = input.parquet();
        this.progress = progress;
        this.schema = ChunkConverter.schemaOf(input);
        this.columns = new ColumnChunkReader[this.input.names().length];
        this.scales = input.keys().scales();
        this.pageBuffers = new PageBuffers[columns.length];
        for (int c = 0; c < columns.length; c++) {
            pageBuffers[c] = new PageBuffers();
        }
        this.batchRows = (int) Math.max(1, Math.min(BatchSizing.rows(columns.length, BatchSizing.MAX_ROWS, batchBytes),
                batchBytes / Math.max(1, BatchSizing.averageRowBytes(input))));
    }

    @Override
    public Batch next() {
        if (batch == null) {
            batch = new Batch(schema, batchRows);
            positions = new long[batchRows];
        }
        if (!readInto(batch, positions)) {
            return null;
        }
        progress.rowsRead(side, batch.rowCount());
        return batch;
    }

    @Override
    public boolean readInto(Batch target, long[] positionsOut) {
        target.reset();
        target.ensureCapacity(batchRows);
        int filled = 0;
        while (filled < batchRows) {
            if (groupRowsLeft == 0 && !nextRowGroup()) {
                break;
            }
            int n = (int) Math.min(batchRows - filled, groupRowsLeft);
            try {
                for (int c = 0; c < columns.length; c++) {
                    columns[c].read(target.column(c), filled, n);
                    if (scales[c] != null) {
                        scales[c].normalize(target.column(c), filled, n, input.names()[c]);
                    }
                }
            } catch (InputException e) {
                throw e;
            } catch (ParquetDecimal.BeyondPrecision | KeyScale.OutOfRange e) {
                throw new InputException("Parquet file " + input.files().get(fileIndex) + ": " + e.getMessage(), e);
            } catch (RuntimeException e) {
                throw ParquetInput.unreadable(input.files().get(fileIndex), e);
            }
            long encodedFile = (long) fileIndex << 40;
            for (int r = 0; r < n; r++) {
                positionsOut[filled + r] = encodedFile | (nextRow + r + 1);
            }
            nextRow += n;
            groupRowsLeft -= n;
            filled += n;
        }
        target.setRowCount(filled);
        rowsRead += filled;
        return filled > 0;
    }

    /** Moves to the next row group with rows, opening the next part file as needed; false at the end. */
    private boolean nextRowGroup() {
        while (true) {
            if (channel != null) {
                List<BlockMetaData> blocks = input.footers().get(fileIndex).getBlocks();
                if (groupIndex < blocks.size()) {
                    BlockMetaData block = blocks.get(groupIndex++);
                    if (block.getRowCount() == 0) {
                        continue;
                    }
                    RowGroupPages group = new RowGroupPages(input.files().get(fileIndex), channel, block,
                            descriptors, pageBuffers);
                    for (int c = 0; c < columns.length; c++) {
                        columns[c] = new ColumnChunkReader(descriptors[c], group.getPageReader(descriptors[c]),
                                createdBy);
                    }
                    groupRowsLeft = block.getRowCount();
                    return true;
                }
                closeChannel();
            }
            if (fileIndex + 1 >= input.files().size()) {
                releasePages();
                return false;
            }
            fileIndex++;
            nextRow = 0;
            groupIndex = 0;
            Path file = input.files().get(fileIndex);
            try {
                channel = FileChannel.open(file, StandardOpenOption.READ);
            } catch (IOException e) {
                throw ParquetInput.unreadable(file, e);
            }
            createdBy = input.footers().get(fileIndex).getFileMetaData().getCreatedBy();
            MessageType requested = input.requestedSchema(fileIndex);
            descriptors = new ColumnDescriptor[columns.length];
            for (int c = 0; c < columns.length; c++) {
                descriptors[c] = requested.getColumnDescription(new String[] {input.names()[c]});
            }
        }
    }

    @Override
    public long positionOf(int row) {
        return positions[row];
    }

    @Override
    public String where(long position) {
        return input.files().get((int) (position >>> 40)) + " row " + (position & ((1L << 40) - 1));
    }

    @Override
    public int batchRows() {
        return batchRows;
    }

    @Override
    public Schema schema() {
        return schema;
    }

    @Override
    public Side side() {
        return side;
    }

    @Override
    public long sizeHintBytes() {
        return input.bytes();
    }

    @Override
    public long sizeHintRows() {
        return input.rows();
    }

    @Override
    public long rowsRead() {
        return rowsRead;
    }

    @Override
    public long rowsSkipped() {
        return 0;
    }

    @Override
    public long fileBytes() {
        return input.bytes();
    }

    @Override
    public void close() {
        closeChannel();
        releasePages();
    }

    /** Drops the last row group's readers and the page buffers (at the input's end, or when closed). */
    private void releasePages() {
        for (int c = 0; c < columns.length; c++) {
            columns[c] = null;
            pageBuffers[c].release();
        }
    }

    private void closeChannel() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // read to the end or abandoned: nothing of ours to keep
            }
            channel = null;
        }
    }
}
