package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.PrintStream;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Where the join's rows go: the opened {@code --output} target ({@link OutputFile}), else the given standard
 * output stream (a {@link PrintStream} hides write errors, so {@link #commit()} asks it with {@code checkError}),
 * in the plan's {@link ResultFormat}: CSV (its header written at opening; compressed by the output's extension)
 * or Parquet. {@link #commit()} on success, after the writer's {@link ResultWriter#finish()}; {@link #close()}
 * always (it stops the writer's threads, then deletes an uncommitted output file).
 */
public final class ResultOutput implements AutoCloseable {
    private final OutputFile file;
    private final OutputStream stream;
    private final String description;
    private ResultWriter writer;

    private ResultOutput(OutputFile file, OutputStream stream, String description) {
        this.file = file;
        this.stream = stream;
        this.description = description;
    }

    /** Makes the writer of the rows on the output's stream (a CSV writer writes its header at once). */
    @FunctionalInterface
    interface WriterFactory {
        ResultWriter open(OutputStream stream) throws IOException;
    }

    /** Opens {@code factory}'s writer on {@code file} (null: {@code stdout}). */
    static ResultOutput open(OutputFile file, OutputStream stdout, WriterFactory factory) {
        OutputStream stream = file == null ? stdout : file.stream();
        String description = file == null ? "standard output" : file.description();
        ResultOutput result = new ResultOutput(file, stream, description);
        try {
            result.writer = factory.open(stream);
        } catch (IOException e) {
            result.close();
            throw result.writeFailed(e);
        }
        return result;
    }

    /** The writer of {@code plan}'s result (batches of {@code resultSchema}) in the plan's output format. */
    static WriterFactory writerFor(JoinPlan plan, Schema resultSchema) {
        return stream -> ScaledKeysWriter.around(writer(stream, plan, resultSchema), keyScales(plan));
    }

    /** Per output column, how its key values were scaled as read ({@link KeyScale}), or null. */
    private static KeyScale[] keyScales(JoinPlan plan) {
        KeyScale[] scales = new KeyScale[plan.outputNames().length];
        for (int c = 0; c < scales.length; c++) {
            scales[c] = sourceOf(plan, c).keys().scales()[sourceColumn(plan, c)];
        }
        return scales;
    }

    private static ResultWriter writer(OutputStream stream, JoinPlan plan, Schema resultSchema) throws IOException {
        ResultFormat format = plan.output();
        if (format.format() == DataFormat.PARQUET) {
            ColumnType[] types = new ColumnType[resultSchema.size()];
            for (int c = 0; c < types.length; c++) {
                types[c] = resultSchema.type(c);
            }
            return new ParquetResultWriter(stream, plan.outputNames(), types, inputParquetTypes(plan),
                    dictionaryFirst(plan), format.parquetCodec(), plan.threads(),
                    LanePolicy.onceACoreIdles(Runtime.getRuntime().availableProcessors()));
        }
        return BatchCsvWriter.open(stream, format.csvCompression(), plan.left().format().delimiter(),
                plan.outputNames(), inputParquetTypes(plan));
    }

    /**
     * The Parquet type of each output column whose values are one ({@link InputSide#parquetType}: a Parquet input's
     * column, or a CSV key read as its Parquet partner's type; null for the others): Parquet output writes the column
     * with it, CSV output writes its values by its logical type.
     */
    private static PrimitiveType[] inputParquetTypes(JoinPlan plan) {
        PrimitiveType[] types = new PrimitiveType[plan.outputNames().length];
        for (int c = 0; c < types.length; c++) {
            types[c] = sourceOf(plan, c).parquetType(sourceColumn(plan, c));
        }
        return types;
    }

    /**
     * Per output column, whether Parquet output tries dictionary encoding first: unless the column comes from a
     * Parquet input whose writer did not dictionary-encode it ({@link ParquetInput#dictionaryEncoded}).
     */
    private static boolean[] dictionaryFirst(JoinPlan plan) {
        boolean[] dictionary = new boolean[plan.outputNames().length];
        for (int c = 0; c < dictionary.length; c++) {
            ParquetInput parquet = sourceOf(plan, c).parquet();
            dictionary[c] = parquet == null || parquet.dictionaryEncoded(sourceColumn(plan, c));
        }
        return dictionary;
    }

    /** The input output column {@code c} comes from: the left's columns come first, then the right's. */
    private static InputSide sourceOf(JoinPlan plan, int c) {
        return c < plan.left().columnCount() ? plan.left() : plan.right();
    }

    /** Output column {@code c}'s index among its input's columns. */
    private static int sourceColumn(JoinPlan plan, int c) {
        int leftColumns = plan.left().columnCount();
        return c < leftColumns ? c : c - leftColumns;
    }

    /** The failure to report when writing the rows failed with {@code cause}. */
    public ResourceException writeFailed(IOException cause) {
        if (file == null && !(cause instanceof InterruptedIOException)) {
            return new ResourceException("cannot write standard output: " + cause.getMessage() + "; the disk is"
                    + " full or the pipe's reader went away (use --output FILE to write a file)", cause);
        }
        return ResourceException.writeFailed(description, cause);
    }

    public ResultWriter writer() {
        return writer;
    }

    /** Once the writer has finished: for a file, makes it final (renames it into place). */
    public void commit() {
        try {
            stream.flush();
            if (file != null) {
                file.commit();
            } else if (stream instanceof PrintStream print && print.checkError()) {
                throw new IOException("the stream reported an error (closed pipe?)");
            }
        } catch (IOException e) {
            throw writeFailed(e);
        }
    }

    @Override
    public void close() {
        if (writer != null) {
            writer.close();
        }
        if (file != null) {
            file.close();
        } else {
            try {
                stream.flush();
            } catch (IOException e) {
                // standard output went away; nothing to clean up
            }
        }
    }
}
