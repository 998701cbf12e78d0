package dev.spilljoin.operator;

import dev.spilljoin.operator.data.Batch;
import dev.spilljoin.operator.data.BatchSource;
import dev.spilljoin.operator.data.Schema;

import java.util.Objects;

/**
 * The check that every input batch has the column types of its side's schema ({@link JoinSpec#schema}), position by
 * position: the join reads a batch's columns by the layout of its side's types, so a batch of other types would be
 * read as garbage (a VARCHAR column's offsets taken for a BIGINT's values) or fail deep inside a worker. Pushed
 * batches are checked as they are pushed ({@link #requireMatches}); a pulled source's batches as the join reads them,
 * on whichever worker reads them ({@link #checked}). A batch made with the side's own schema object passes at one
 * comparison; names and nullability are not compared (they do not change how values are laid out).
 */
final class InputBatchCheck {
    private InputBatchCheck() {
    }

    /** Throws {@link IllegalArgumentException} (or, for null, {@link NullPointerException}) unless it matches. */
    static void requireMatches(Side side, Schema expected, Batch batch) {
        Objects.requireNonNull(batch, () -> "a " + side + " batch is null; pass a batch of " + expected);
        Schema actual = batch.schema();
        if (actual == expected) {
            return;
        }
        if (actual.size() != expected.size()) {
            throw mismatch(side, expected, actual, actual.size() + " columns where the " + side + " side has "
                    + expected.size());
        }
        for (int i = 0; i < expected.size(); i++) {
            if (actual.type(i) != expected.type(i)) {
                throw mismatch(side, expected, actual, "column " + (i + 1) + " ('" + actual.column(i).name()
                        + "') is " + actual.type(i) + " where the " + side + " side has " + expected.type(i));
            }
        }
    }

    private static IllegalArgumentException mismatch(Side side, Schema expected, Schema actual, String what) {
        return new IllegalArgumentException("a " + side + " batch of columns " + actual + " does not match the join's "
                + side + " schema " + expected + ": " + what + "; give this side batches of its schema (JoinSpec)");
    }

    /** {@code source}, and any concurrent reader it hands out, checking each batch it returns. */
    static BatchSource checked(BatchSource source, Side side, Schema expected) {
        return new BatchSource() {
            @Override
            public Batch next() {
                Batch batch = source.next();
                if (batch != null) {
                    requireMatches(side, expected, batch);
                }
                return batch;
            }

            @Override
            public long sizeHintBytes() {
                return source.sizeHintBytes();
            }

            @Override
            public long sizeHintRows() {
                return source.sizeHintRows();
            }

            @Override
            public BatchSource concurrentReader() {
                BatchSource reader = source.concurrentReader();
                return reader == null ? null : checked(reader, side, expected);
            }
        };
    }
}
