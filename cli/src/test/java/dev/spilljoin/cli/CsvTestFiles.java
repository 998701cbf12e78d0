package dev.spilljoin.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Helpers to write CSV text to a file and read it back as rows of Strings (null for NULL). */
final class CsvTestFiles {
    private CsvTestFiles() {
    }

    static Path write(Path dir, String name, String content) {
        return writeBytes(dir, name, content.getBytes(StandardCharsets.UTF_8));
    }

    static Path writeBytes(Path dir, String name, byte[] content) {
        try {
            return Files.write(dir.resolve(name), content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** All data rows of {@code reader}, read through chunks of {@code chunkRows} rows. */
    static List<List<String>> rows(CsvReader reader, int chunkRows) {
        List<List<String>> rows = new ArrayList<>();
        CsvChunk chunk = reader.newChunk(chunkRows);
        while (reader.read(chunk)) {
            for (int r = 0; r < chunk.rows(); r++) {
                String[] row = new String[chunk.columns()];
                for (int c = 0; c < chunk.columns(); c++) {
                    row[c] = chunk.text(c, r);
                }
                rows.add(Arrays.asList(row));
            }
        }
        return rows;
    }

    static List<List<String>> readAll(Path file, CsvFormat format) {
        try (CsvReader reader = new CsvReader(file, format, OnError.FAIL)) {
            return rows(reader, 3);
        }
    }

    /** A file of {@code rows} rows (id, payload) with header {@code id,v}, ids 0.. in order, then {@code extra}. */
    static Path numbered(Path dir, String name, int rows, String extra) {
        StringBuilder text = new StringBuilder("id,v\n");
        for (int i = 0; i < rows; i++) {
            text.append(i).append(",some payload text ").append(i).append('\n');
        }
        return write(dir, name, text.append(extra).toString());
    }

    static List<String> row(String... values) {
        return Arrays.asList(values);
    }
}
