package dev.spilljoin.cli;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;

/**
 * The needed column chunks of one row group as parquet-column's page store: each chunk's pages read lazily from the
 * file ({@link ColumnChunkPages}, one {@link PositionalInput} per chunk over the part file's one channel), located by
 * the footer read at planning, so a row group is never read whole into memory, whatever its size.
 */
final class RowGroupPages implements PageReadStore {
    private final long rows;
    private final ColumnDescriptor[] columns;
    private final ColumnChunkPages[] pages;

    /**
     * The chunks of {@code columns} in {@code block} of {@code file}, read through {@code channel} into
     * {@code buffers} (one per column, in the same order).
     */
    RowGroupPages(Path file, FileChannel channel, BlockMetaData block, ColumnDescriptor[] columns,
                  PageBuffers[] buffers) {
        this.rows = block.getRowCount();
        this.columns = columns;
        this.pages = new ColumnChunkPages[columns.length];
        for (int c = 0; c < columns.length; c++) {
            ColumnChunkMetaData chunk = chunkOf(block, columns[c]);
            if (chunk == null) {
                throw new InputException("column '" + String.join(".", columns[c].getPath()) + "' has no chunk in"
                        + " a row group of Parquet file " + file + " although the file's schema has it; is it a"
                        + " complete Parquet file?");
            }
            pages[c] = new ColumnChunkPages(file, columns[c], chunk, new PositionalInput(channel,
                    chunk.getStartingPos(), buffers[c].input()), buffers[c]);
        }
    }

    @Override
    public PageReader getPageReader(ColumnDescriptor descriptor) {
        for (int c = 0; c < columns.length; c++) {
            if (columns[c].equals(descriptor)) {
                return pages[c];
            }
        }
        throw new IllegalArgumentException("column " + descriptor + " was not requested");
    }

    @Override
    public long getRowCount() {
        return rows;
    }

    private static ColumnChunkMetaData chunkOf(BlockMetaData block, ColumnDescriptor column) {
        for (ColumnChunkMetaData chunk : block.getColumns()) {
            if (Arrays.equals(chunk.getPath().toArray(), column.getPath())) {
                return chunk;
            }
        }
        return null;
    }
}
