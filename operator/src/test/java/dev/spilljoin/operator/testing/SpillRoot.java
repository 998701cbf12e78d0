package dev.spilljoin.operator.testing;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fresh directory per test for joins to make their spill directories in ({@code JoinConfig.Builder.spillDirectory});
 * after the test it must be empty (no join may leave a file behind), and it is deleted. Register with
 * {@code @RegisterExtension final SpillRoot spillRoot = new SpillRoot();}.
 */
public final class SpillRoot implements BeforeEachCallback, AfterEachCallback {
    private Path path;

    /** The directory of the running test. */
    public Path path() {
        return path;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        path = Files.createTempDirectory("spill-root-");
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        try (var files = Files.list(path)) {
            assertThat(files).as("files left in the spill root " + path).isEmpty();
        } finally {
            Files.deleteIfExists(path);
        }
    }
}
