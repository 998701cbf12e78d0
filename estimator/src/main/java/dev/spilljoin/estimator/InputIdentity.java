package dev.spilljoin.estimator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * What makes two join inputs the same input, for the {@link StatisticsCache}: a file as it was (its absolute path,
 * size and modification time: a rewritten file is a new input), or a table at a version the caller names.
 */
public sealed interface InputIdentity permits InputIdentity.FileVersion, InputIdentity.TableVersion {

    /** The bytes a key takes in the cache, about (for the weigher). */
    long heapBytes();

    /** A file's identity: changes whenever its size or modification time does. */
    record FileVersion(Path path, long sizeBytes, long modifiedMillis) implements InputIdentity {
        public FileVersion {
            if (path == null) {
                throw new IllegalArgumentException("file identity needs a path");
            }
            path = path.toAbsolutePath().normalize();
        }

        @Override
        public long heapBytes() {
            return 64 + 2L * path.toString().length();
        }
    }

    /** A table's identity: the caller's table id and a version it bumps on every change. */
    record TableVersion(String tableId, long version) implements InputIdentity {
        public TableVersion {
            if (tableId == null || tableId.isEmpty()) {
                throw new IllegalArgumentException("table identity needs a non-empty table id");
            }
        }

        @Override
        public long heapBytes() {
            return 48 + 2L * tableId.length();
        }
    }

    /** The identity of {@code file} as it is now on disk. */
    static FileVersion ofFile(Path file) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        return new FileVersion(file, attributes.size(), attributes.lastModifiedTime().toMillis());
    }

    static TableVersion ofTable(String tableId, long version) {
        return new TableVersion(tableId, version);
    }
}
