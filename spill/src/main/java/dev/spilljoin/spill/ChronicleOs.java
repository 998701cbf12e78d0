package dev.spilljoin.spill;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Loads Chronicle Core's {@code OS} class without leaving behind the directory it makes. Its initializer looks for a
 * {@code target/} or {@code build/} directory in the working directory or above it (its place for IOTools'
 * temporary files, which spilljoin never uses) and, finding none and no {@code project.build.directory} property,
 * makes {@code ${java.io.tmpdir}/target} and leaves it there: in the temporary directory of every Spark executor or
 * engine a join ran in, and of every {@code spilljoin} run.
 *
 * <p>{@link #load()}, which the module's two gates to Chronicle ({@link NativeMemory}'s initialization and
 * {@link SpillSpace#create}) call before their first use of it, initializes the class and removes that directory
 * again if it was not there before and is still an empty directory (not a link): what is removed was made by
 * Chronicle in this moment. A directory with anything in it is never removed, nor one that was there before.
 */
final class ChronicleOs {
    private static final String OS_CLASS = "net.openhft.chronicle.core.OS";

    static {
        Path made = madeByChronicle();
        boolean existed = made == null || Files.exists(made, LinkOption.NOFOLLOW_LINKS);
        try {
            Class.forName(OS_CLASS, true, ChronicleOs.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("Chronicle Core is not on the class path: " + e.getMessage(), e);
        }
        if (!existed && Files.isDirectory(made, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.delete(made);
            } catch (DirectoryNotEmptyException someoneUsesIt) {
                // not only Chronicle's empty directory: kept
            } catch (IOException e) {
                // an empty directory left behind is no reason to fail a join
            }
        }
    }

    private ChronicleOs() {
    }

    /**
     * Initializes Chronicle Core's {@code OS} class, once, removing what it made (see above). The work is this
     * class's initialization, which the JVM runs once and makes a concurrent caller wait for.
     */
    static void load() {
    }

    /** The directory Chronicle makes if the process did not say where its build directory is; null if it did. */
    private static Path madeByChronicle() {
        String temporary = System.getProperty("java.io.tmpdir");
        if (System.getProperty("project.build.directory") != null || temporary == null) {
            return null;
        }
        return Path.of(temporary, "target");
    }
}
