package dev.spilljoin.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.SpilljoinReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * One Parquet input as planned: its part files and, from their footers only, its columns, row count and size.
 *
 * <p>The input is a file, a directory of part files (as Spark and DuckDB write them: every regular file whose name
 * does not start with {@code _} or {@code .}, in name order) or a glob in the last path element
 * ({@code dir/part-*.parquet}). The columns are the first part file's top-level columns; {@link #project} keeps the
 * ones the join reads and checks that every part file has each of them with the same type, and that each is a type
 * spilljoin reads ({@link ParquetColumnType}). Every failure is an {@link InputException} naming the file and, where
 * there is one, the column. A row group whose needed column chunks exceed {@link #MAX_ROW_GROUP_BYTES} is refused
 * here, before the join starts: the reader holds one row group's needed chunks in memory at a time, so that bound
 * is what decoding takes (plus a decompressed page and a dictionary per column).
 *
 * @param names names of the columns read, in file order
 * @param types their Parquet types (as the first part file has them)
 * @param rows  total rows of all part files (footers)
 * @param bytes total size of all part files
 */
record ParquetInput(String role, Path given, List<Path> files, List<MessageType> schemas, String[] names,
                    PrimitiveType[] types, long rows, long bytes) {
    /** The largest row group accepted, counting only the column chunks the join reads (compressed bytes). */
    static final long MAX_ROW_GROUP_BYTES = 64L << 20;

    /** Read options: no Hadoop configuration, and the CLI's own codecs ({@link ParquetCodecs}). */
    static ParquetReadOptions readOptions() {
        return SpilljoinReadOptions.create(ParquetCodecs.INSTANCE);
    }

    /** True when {@code path} names Parquet by its extension (a file, a glob, or a directory ending .parquet). */
    static boolean looksLikeParquet(Path path) {
        String name = path.getFileName() == null ? "" : path.getFileName().toString();
        return name.endsWith(".parquet") || name.endsWith(".parq")
                || Files.isDirectory(path) && containsParquet(path);
    }

    /** Finds {@code given}'s part files and reads their footers. */
    static ParquetInput open(String role, Path given) {
        List<Path> files = partFiles(role, given);
        List<MessageType> schemas = new ArrayList<>(files.size());
        long rows = 0;
        long bytes = 0;
        for (Path file : files) {
            ParquetMetadata footer = footer(file);
            schemas.add(footer.getFileMetaData().getSchema());
            for (BlockMetaData block : footer.getBlocks()) {
                rows += block.getRowCount();
            }
            bytes += sizeOf(file);
        }
        MessageType first = schemas.get(0);
        String[] names = new String[first.getFieldCount()];
        PrimitiveType[] types = new PrimitiveType[names.length];
        for (int c = 0; c < names.length; c++) {
            Type field = first.getType(c);
            names[c] = field.getName();
            types[c] = ParquetColumnType.unsupported(field) == null ? field.asPrimitiveType() : null;
        }
        return new ParquetInput(role, given, files, schemas, names, types, rows, bytes);
    }

    /**
     * This input reading only {@code columns} (indexes into {@link #names()}, in file order): checks that each is
     * a supported type in every part file and that no row group holds more than {@link #MAX_ROW_GROUP_BYTES} of them.
     */
    ParquetInput project(int[] columns) {
        String[] projected = new String[columns.length];
        PrimitiveType[] projectedTypes = new PrimitiveType[columns.length];
        for (int i = 0; i < columns.length; i++) {
            projected[i] = names[columns[i]];
            Type field = schemas.get(0).getType(columns[i]);
            String why = ParquetColumnType.unsupported(field);
            if (why != null) {
                throw new InputException("column '" + field.getName() + "' of " + files.get(0) + " is " + why
                        + ", which spilljoin cannot read; write the file without it or flatten it first");
            }
            projectedTypes[i] = field.asPrimitiveType();
        }
        for (int f = 0; f < files.size(); f++) {
            MessageType schema = schemas.get(f);
            for (int i = 0; i < columns.length; i++) {
                if (!schema.containsField(projected[i])) {
                    throw new InputException("column '" + projected[i] + "' is missing from " + files.get(f)
                            + " (a part file of " + given + " whose first part " + files.get(0) + " has it);"
                            + " every part file needs the same columns");
                }
                Type field = schema.getType(projected[i]);
                if (!field.equals(schemas.get(0).getType(projected[i]))
                        && !(field.isPrimitive() && sameType(field.asPrimitiveType(), projectedTypes[i]))) {
                    throw new InputException("column '" + projected[i] + "' of " + files.get(f) + " is " + field
                            + " but " + projectedTypes[i] + " in " + files.get(0) + "; every part file needs"
                            + " the same column types");
                }
            }
        }
        checkRowGroups(projected);
        return new ParquetInput(role, given, files, schemas, projected, projectedTypes, rows, bytes);
    }

    /** The requested (projected) schema of part file {@code file}. */
    MessageType requestedSchema(int file) {
        List<Type> fields = new ArrayList<>(names.length);
        for (String name : names) {
            fields.add(schemas.get(file).getType(name));
        }
        return new MessageType(schemas.get(file).getName(), fields);
    }

    /** Opens part file {@code file} reading only the projected columns. */
    ParquetFileReader openReader(int file) {
        Path path = files.get(file);
        try {
            ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(path), readOptions());
            reader.setRequestedSchema(requestedSchema(file));
            return reader;
        } catch (IOException | RuntimeException e) {
            throw unreadable(path, e);
        }
    }

    static InputException unreadable(Path file, Exception e) {
        return new InputException("cannot read Parquet file " + file + ": " + oneLine(e)
                + "; is it a complete Parquet file?", e);
    }

    private static String oneLine(Exception e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    private void checkRowGroups(String[] projected) {
        for (Path file : files) {
            ParquetMetadata footer = footer(file);
            int group = 0;
            for (BlockMetaData block : footer.getBlocks()) {
                long needed = 0;
                for (ColumnChunkMetaData chunk : block.getColumns()) {
                    String top = chunk.getPath().toArray()[0];
                    for (String name : projected) {
                        if (name.equals(top)) {
                            needed += chunk.getTotalSize();
                        }
                    }
                }
                if (needed > MAX_ROW_GROUP_BYTES) {
                    throw new InputException("row group " + group + " of " + file + " holds " + (needed >> 20)
                            + " MB of the columns the join reads; spilljoin reads row groups of up to "
                            + (MAX_ROW_GROUP_BYTES >> 20) + " MB (memory for decoding is bounded); rewrite the file"
                            + " with smaller row groups");
                }
                group++;
            }
        }
    }

    private static boolean sameType(PrimitiveType a, PrimitiveType b) {
        return a.getPrimitiveTypeName() == b.getPrimitiveTypeName()
                && ParquetColumnType.heldAs(a) == ParquetColumnType.heldAs(b);
    }

    private static ParquetMetadata footer(Path file) {
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), readOptions())) {
            return reader.getFooter();
        } catch (IOException | RuntimeException e) {
            throw unreadable(file, e);
        }
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new InputException("cannot read " + file + ": " + e.getMessage() + "; check the path", e);
        }
    }

    private static List<Path> partFiles(String role, Path given) {
        List<Path> files = new ArrayList<>();
        String name = given.getFileName() == null ? "" : given.getFileName().toString();
        if (Files.isDirectory(given)) {
            try (Stream<Path> entries = Files.list(given)) {
                entries.filter(p -> isPartFile(p)).sorted().forEach(files::add);
            } catch (IOException e) {
                throw new InputException("cannot list the --" + role + " directory " + given + ": " + e.getMessage(),
                        e);
            }
        } else if (name.indexOf('*') >= 0 || name.indexOf('?') >= 0 || name.indexOf('[') >= 0) {
            Path dir = given.getParent() == null ? Path.of(".") : given.getParent();
            PathMatcher matcher = dir.getFileSystem().getPathMatcher("glob:" + name);
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
                for (Path p : entries) {
                    if (matcher.matches(p.getFileName()) && isPartFile(p)) {
                        files.add(p);
                    }
                }
            } catch (IOException e) {
                throw new InputException("cannot list " + dir + " for the --" + role + " glob " + given + ": "
                        + e.getMessage(), e);
            }
            files.sort(null);
        } else if (Files.isRegularFile(given)) {
            files.add(given);
        } else {
            throw new InputException("cannot read " + given + ": no such file, directory or glob match; check the"
                    + " --" + role + " path");
        }
        if (files.isEmpty()) {
            throw new InputException("--" + role + " " + given + " has no Parquet part files; check the path");
        }
        return files;
    }

    private static boolean isPartFile(Path p) {
        String n = p.getFileName().toString();
        return Files.isRegularFile(p) && !n.startsWith("_") && !n.startsWith(".") && !n.endsWith(".crc");
    }

    private static boolean containsParquet(Path dir) {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.anyMatch(p -> p.getFileName().toString().endsWith(".parquet"));
        } catch (IOException e) {
            return false;
        }
    }
}
