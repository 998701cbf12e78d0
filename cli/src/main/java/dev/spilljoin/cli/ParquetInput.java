package dev.spilljoin.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.SpilljoinReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.column.Encoding;
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
 * does not start with {@code _} or {@code .}, in name order) or a glob in any path elements
 * ({@code dir/part-*.parquet}, {@code data/year=*}{@code /part-*.parquet}: {@link #partFiles}). The columns are the
 * first part file's top-level columns; {@link #project} keeps the ones the join reads and checks that every part
 * file has each of them with the same type (physical and logical, {@link ParquetColumnType#sameValues}: a value of
 * one part means what it does in another), and that each is a type spilljoin reads ({@link ParquetColumnType}).
 * Every failure is an {@link InputException} naming the file and, where there is one, the column. Each part file's
 * footer is read once, here, and kept: the reader ({@link ParquetBatchSource}) locates the column chunks from it and
 * streams them page by page, so row groups of any size are read (the memory bound is per page,
 * {@link ColumnChunkPages}).
 *
 * @param footers each part file's footer (its schema, row groups and column chunks), in file order
 * @param names   names of the columns read, in file order
 * @param types their Parquet types (as the first part file has them)
 * @param rows  total rows of all part files (footers)
 * @param bytes total size of all part files
 */
record ParquetInput(String role, Path given, List<Path> files, List<ParquetMetadata> footers, String[] names,
                    PrimitiveType[] types, long rows, long bytes) {
    /** Read options: no Hadoop configuration, and the CLI's own codecs ({@link ParquetCodecs}). */
    static ParquetReadOptions readOptions() {
        return SpilljoinReadOptions.create(ParquetCodecs.INSTANCE);
    }

    /** True when {@code path} names Parquet by its extension (a file, a glob, or a directory ending .parquet). */
    static boolean looksLikeParquet(Path path) {
        return DataFormat.hasParquetExtension(path) || Files.isDirectory(path) && containsParquet(path);
    }

    /** Finds {@code given}'s part files and reads their footers. */
    static ParquetInput open(String role, Path given) {
        List<Path> files = partFiles(role, given);
        List<ParquetMetadata> footers = new ArrayList<>(files.size());
        long rows = 0;
        long bytes = 0;
        for (Path file : files) {
            ParquetMetadata footer = footer(file);
            footers.add(footer);
            for (BlockMetaData block : footer.getBlocks()) {
                rows += block.getRowCount();
            }
            bytes += sizeOf(file);
        }
        MessageType first = footers.get(0).getFileMetaData().getSchema();
        String[] names = new String[first.getFieldCount()];
        PrimitiveType[] types = new PrimitiveType[names.length];
        for (int c = 0; c < names.length; c++) {
            Type field = first.getType(c);
            names[c] = field.getName();
            types[c] = ParquetColumnType.unsupported(field) == null ? field.asPrimitiveType() : null;
        }
        return new ParquetInput(role, given, files, footers, names, types, rows, bytes);
    }

    /**
     * Whether the writer of the first part file dictionary-encoded column {@code column} (of {@link #names()}) in
     * its first row group; true for a file without rows. A hint for the output's encoding, not a check.
     */
    boolean dictionaryEncoded(int column) {
        List<BlockMetaData> groups = footers.get(0).getBlocks();
        if (groups.isEmpty()) {
            return true;
        }
        for (ColumnChunkMetaData chunk : groups.get(0).getColumns()) {
            String[] path = chunk.getPath().toArray();
            if (path.length == 1 && path[0].equals(names[column])) {
                Set<Encoding> encodings = chunk.getEncodings();
                return encodings.contains(Encoding.PLAIN_DICTIONARY) || encodings.contains(Encoding.RLE_DICTIONARY);
            }
        }
        return true;
    }

    /**
     * This input reading only {@code columns} (indexes into {@link #names()}, in file order): checks that each is
     * a supported type in every part file.
     */
    ParquetInput project(int[] columns) {
        String[] projected = new String[columns.length];
        PrimitiveType[] projectedTypes = new PrimitiveType[columns.length];
        for (int i = 0; i < columns.length; i++) {
            projected[i] = names[columns[i]];
            Type field = schema(0).getType(columns[i]);
            String why = ParquetColumnType.unsupported(field);
            if (why != null) {
                throw new InputException("column '" + field.getName() + "' of " + files.get(0) + " is " + why
                        + ", which spilljoin cannot read; write the file without it or flatten it first");
            }
            projectedTypes[i] = field.asPrimitiveType();
        }
        for (int f = 0; f < files.size(); f++) {
            MessageType schema = schema(f);
            for (int i = 0; i < columns.length; i++) {
                if (!schema.containsField(projected[i])) {
                    throw new InputException("column '" + projected[i] + "' is missing from " + files.get(f)
                            + " (a part file of " + given + " whose first part " + files.get(0) + " has it);"
                            + " every part file needs the same columns");
                }
                Type field = schema.getType(projected[i]);
                if (!field.equals(schema(0).getType(projected[i])) && !(field.isPrimitive()
                        && ParquetColumnType.sameValues(field.asPrimitiveType(), projectedTypes[i]))) {
                    throw new InputException("column '" + projected[i] + "' of " + files.get(f) + " is " + field
                            + " but " + projectedTypes[i] + " in " + files.get(0) + "; every part file needs"
                            + " the same column types (physical and logical: a DECIMAL's precision and scale, a"
                            + " TIMESTAMP's unit and UTC adjustment); write the part files again with one type");
                }
            }
        }
        return new ParquetInput(role, given, files, footers, projected, projectedTypes, rows, bytes);
    }

    /**
     * Refuses column {@code name} missing from the first part file while a later one has it (a directory Spark
     * appended to with another schema, whose part files sort either way): an {@link InputException} naming that
     * file and the column, as {@link #project} does for a later part file without it. A column no part file has
     * is left to the caller: the input does not have it.
     */
    void checkFirstPartHas(String name) {
        if (schema(0).containsField(name)) {
            return;
        }
        for (int f = 1; f < files.size(); f++) {
            if (schema(f).containsField(name)) {
                throw new InputException("column '" + name + "' is missing from " + files.get(0) + " (the first"
                        + " part file of " + given + ", whose part " + files.get(f) + " has it); every part file"
                        + " needs the same columns");
            }
        }
    }

    /** The schema of part file {@code file}. */
    MessageType schema(int file) {
        return footers.get(file).getFileMetaData().getSchema();
    }

    /** The requested (projected) schema of part file {@code file}. */
    MessageType requestedSchema(int file) {
        List<Type> fields = new ArrayList<>(names.length);
        MessageType schema = schema(file);
        for (String name : names) {
            fields.add(schema.getType(name));
        }
        return new MessageType(schema.getName(), fields);
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


    private static ParquetMetadata footer(Path file) {
        try (ParquetFileReader reader = ParquetFileReader.open(new NamedInputFile(file), readOptions())) {
            return reader.getFooter();
        } catch (IOException | RuntimeException e) {
            throw unreadable(file, e);
        }
    }

    /** A local file that parquet-java's messages name by its path (LocalInputFile's own is an object id). */
    private static final class NamedInputFile extends LocalInputFile {
        private final Path path;

        NamedInputFile(Path path) {
            super(path);
            this.path = path;
        }

        @Override
        public String toString() {
            return path.toString();
        }
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new InputException("cannot read " + file + ": " + e.getMessage() + "; check the path", e);
        }
    }

    /**
     * The part files {@code given} names, in name order: itself (a regular file), a directory's part files or a
     * glob's matches ({@link #globMatches}); an {@link InputException} naming {@code --role} when there are none.
     */
    static List<Path> partFiles(String role, Path given) {
        List<Path> files = new ArrayList<>();
        if (Files.isDirectory(given)) {
            try (Stream<Path> entries = Files.list(given)) {
                entries.filter(p -> isPartFile(p)).sorted().forEach(files::add);
            } catch (IOException e) {
                throw new InputException("cannot list the --" + role + " directory " + given + ": " + e.getMessage(),
                        e);
            }
        } else if (Files.isRegularFile(given)) {
            files.add(given); // before globs: a file whose path holds [ or * is itself
        } else if (hasGlob(given)) {
            files = globMatches(role, given);
            if (files.isEmpty()) {
                throw new InputException("--" + role + " " + given + " matches no Parquet part file (a glob skips"
                        + " names starting with _ or . and does not enter symbolic links to directories); check"
                        + " the path, e.g. with: ls " + given);
            }
        } else {
            throw new InputException("cannot read " + given + ": no such file, directory or glob match; check the"
                    + " --" + role + " path");
        }
        if (files.isEmpty()) {
            throw new InputException("--" + role + " " + given + " has no Parquet part files; check the path");
        }
        return files;
    }

    /** Whether a path element of {@code path} is a glob (holds {@code *}, {@code ?} or {@code [}). */
    private static boolean hasGlob(Path path) {
        for (Path element : path) {
            if (isGlob(element.toString())) {
                return true;
            }
        }
        return false;
    }

    private static boolean isGlob(String element) {
        return element.indexOf('*') >= 0 || element.indexOf('?') >= 0 || element.indexOf('[') >= 0;
    }

    /**
     * The part files the glob {@code given} matches, sorted by path: a glob may be any path element
     * ({@code data/year=*}{@code /part-*.parquet}, as Hive lays out partitions), matched one directory level at a
     * time ({@code **} is refused: one {@code *} per level). Entries whose names start with {@code _} or {@code .}
     * ({@code _temporary}, {@code .crc} files) are skipped at every level, and past the first glob element only real
     * directories are entered, never a symbolic link to one, so the matches stay under the directories the glob
     * names; the matched files are regular files (or links to them), as a directory input's part files are.
     */
    private static List<Path> globMatches(String role, Path given) {
        List<Path> level = new ArrayList<>();
        level.add(given.getRoot()); // null: relative to the working directory
        boolean globbed = false;
        int last = given.getNameCount() - 1;
        for (int i = 0; i <= last; i++) {
            String element = given.getName(i).toString();
            if (element.contains("**")) {
                throw new InputException("--" + role + " " + given + ": '**' (any depth) is not supported in a"
                        + " glob; write one '*' per directory level, e.g. data/*/*/part-*.parquet");
            }
            globbed |= isGlob(element);
            List<Path> next = new ArrayList<>();
            for (Path at : level) {
                Path dir = at == null ? Path.of(".") : at;
                if (!isGlob(element)) {
                    next.add(at == null ? Path.of(element) : at.resolve(element));
                } else if (Files.isDirectory(dir)) {
                    matching(role, given, dir, element, next);
                }
            }
            if (globbed && i < last) {
                next.removeIf(p -> !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS));
            }
            level = next;
        }
        level.removeIf(p -> !isPartFile(p));
        level.sort(null);
        return level;
    }

    /** Adds to {@code out} the entries of {@code dir} that glob element {@code element} matches, as above. */
    private static void matching(String role, Path given, Path dir, String element, List<Path> out) {
        PathMatcher matcher = dir.getFileSystem().getPathMatcher("glob:" + element);
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                if (matcher.matches(p.getFileName()) && !hidden(p)) {
                    out.add(p);
                }
            }
        } catch (IOException e) {
            throw new InputException("cannot list " + dir + " for the --" + role + " glob " + given + ": "
                    + e.getMessage() + "; check its permissions", e);
        }
    }

    private static boolean isPartFile(Path p) {
        return Files.isRegularFile(p) && !hidden(p) && !p.getFileName().toString().endsWith(".crc");
    }

    /** Whether {@code p}'s name starts with {@code _} or {@code .}: not a part file, nor a directory of them. */
    private static boolean hidden(Path p) {
        String n = p.getFileName().toString();
        return n.startsWith("_") || n.startsWith(".");
    }

    private static boolean containsParquet(Path dir) {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.anyMatch(DataFormat::hasParquetExtension);
        } catch (IOException e) {
            return false;
        }
    }
}
