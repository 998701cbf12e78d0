package dev.spilljoin.cli;

import dev.spilljoin.spill.NativeMemory;
import java.util.Locale;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * Class initialization a command will wait for later, done on a spare thread while the main thread builds and parses
 * the command line (the machine's other core has nothing else to do then): Chronicle Core, which off-heap memory
 * needs (every join), and, when an argument names Parquet (a {@code .parquet} file or the value {@code parquet}),
 * parquet-java's footer classes ({@link ParquetMetadata}'s initializer builds a JSON mapper) and snappy-java
 * ({@link SnappyLibrary}: its native library; Snappy is the codec of most Parquet files and of spilljoin's own
 * output).
 * Only a head start: a class being initialized here makes the thread that needs it wait for the end, so what runs
 * and its results are the same with or without it.
 */
final class StartupWarmUp {
    private StartupWarmUp() {
    }

    /** Starts the warm-up for a command line of {@code args}; the caller joins the thread before the process exits. */
    static Thread start(String[] args) {
        boolean parquet = mentionsParquet(args);
        Thread thread = new Thread(() -> run(parquet), "spilljoin-warm-up");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void run(boolean parquet) {
        try {
            NativeMemory.initialize();
            if (parquet) {
                initialize(ParquetMetadata.class);
                initialize(ParquetMetadataConverter.class);
                SnappyLibrary.load();
            }
        } catch (RuntimeException | LinkageError e) {
            // not here: the command fails where it needs the class, and reports it there
        }
    }

    static boolean mentionsParquet(String[] args) {
        for (String arg : args) {
            String lower = arg.toLowerCase(Locale.ROOT);
            if (lower.endsWith(".parquet") || lower.endsWith("=parquet") || lower.equals("parquet")) {
                return true;
            }
        }
        return false;
    }

    private static void initialize(Class<?> type) {
        try {
            Class.forName(type.getName(), true, type.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the class " + type.getName() + " vanished from the class path", e);
        }
    }
}
