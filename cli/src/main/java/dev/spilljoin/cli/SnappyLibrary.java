package dev.spilljoin.cli;

import java.io.IOException;
import java.nio.file.Path;
import org.xerial.snappy.Snappy;

/**
 * Loads snappy-java's native library so that no file of it outlives the load. snappy-java extracts the library
 * ({@code snappy-<version>-<uuid>-libsnappyjava.so}) into {@code org.xerial.snappy.tempdir} (default
 * {@code java.io.tmpdir}) and deletes it only at a normal exit ({@code File.deleteOnExit}), which a run ended by a
 * signal ({@link SignalExit} halts the JVM) or by SIGKILL never reaches. Here it is extracted into a private
 * directory made for the load ({@link NativeLibraryDirectory}: mode 0700, in the directory snappy-java would have
 * used, locked while it exists), which is deleted as soon as the library is loaded: a loaded library stays mapped
 * when its file is unlinked (as zstd-jni deletes its own). The signal's hook waits for a load in progress and stops
 * later ones ({@link #closeForExit}), so the directory is gone before the process halts; only SIGKILL during the
 * load (milliseconds), or a failure to delete it, can leave it, and the next load sweeps such leftovers first
 * ({@link NativeLibraryDirectory#sweep}: only directories proven to be ours and no live process's).
 *
 * <p>Every use of {@link Snappy} in the CLI calls {@link #load()} first.
 */
final class SnappyLibrary {
    /** snappy-java's property naming the directory it extracts its library into. */
    private static final String TEMPDIR_PROPERTY = "org.xerial.snappy.tempdir";
    /** The name of the directories it is loaded from starts so. */
    static final String DIRECTORY_PREFIX = "spilljoin-snappy-";

    private static volatile boolean loaded;
    /** Set by the signal's hook: the process is exiting, no library is extracted any more. */
    private static boolean closed;

    private SnappyLibrary() {
    }

    /** Loads the library unless it is loaded already (a volatile read then). */
    static void load() {
        if (!loaded) {
            loadOnce();
        }
    }

    /**
     * Called by the signal's hook before the process halts: waits for a load in progress (which deletes its
     * directory) and refuses later loads, which would extract a file that nothing deletes any more.
     */
    static synchronized void closeForExit() {
        closed = true;
    }

    private static synchronized void loadOnce() {
        if (loaded) {
            return;
        }
        if (closed) {
            throw new IllegalStateException("the process is exiting: snappy-java's library is not loaded any more");
        }
        String given = System.getProperty(TEMPDIR_PROPERTY);
        Path base = Path.of(given != null ? given : System.getProperty("java.io.tmpdir"));
        NativeLibraryDirectory.sweep(base, DIRECTORY_PREFIX);
        NativeLibraryDirectory directory;
        try {
            directory = NativeLibraryDirectory.create(base, DIRECTORY_PREFIX);
        } catch (IOException e) {
            throw new ResourceException("cannot create a directory for snappy-java's native library in " + base + ": "
                    + e.getMessage() + "; make it writable or choose another with JAVA_OPTS=-Djava.io.tmpdir=DIR", e);
        }
        System.setProperty(TEMPDIR_PROPERTY, directory.path().toString());
        try {
            Class.forName(Snappy.class.getName(), true, Snappy.class.getClassLoader());
            loaded = true;
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the class " + Snappy.class.getName() + " vanished from the class path", e);
        } finally {
            if (given == null) {
                System.clearProperty(TEMPDIR_PROPERTY);
            } else {
                System.setProperty(TEMPDIR_PROPERTY, given);
            }
            delete(directory);
        }
    }

    private static void delete(NativeLibraryDirectory directory) {
        try {
            directory.close();
        } catch (IOException e) {
            // unlocked now, so the next load's sweep deletes it
        }
    }
}
