package dev.spilljoin.cli;

import dev.spilljoin.operator.data.ColumnType;
import org.apache.parquet.schema.PrimitiveType;

/**
 * How {@link CsvReader} reads the columns of one input, by column index: the key type each is parsed as (null: a
 * text column, passed through), for a key compared as exact number text the grammar and canonical form (else
 * null), for a key read as the values a Parquet partner's logical type stores that type (else null:
 * {@link LogicalValueParser}), and for the message about a key value that does not parse, what to do besides fixing
 * the value (the flags that read the pair as text, or for a Parquet partner skipping the row; null: read it as text
 * on both sides), and for a Parquet key compared in its partner's unit how its values are scaled to it (else null:
 * {@link KeyScale}).
 */
record KeyReading(ColumnType[] types, NumberText[] numberText, PrimitiveType[] logical, String[] textHints,
                  KeyScale[] scales) {
    KeyReading {
        if (numberText.length != types.length || logical.length != types.length
                || textHints.length != types.length || scales.length != types.length) {
            throw new IllegalArgumentException(types.length + " types but " + numberText.length + " number texts, "
                    + logical.length + " logical types, " + textHints.length + " hints and " + scales.length
                    + " scales");
        }
    }

    /** Keys read as {@code types}, {@code numberText} and {@code logical}, with {@code textHints}, none scaled. */
    KeyReading(ColumnType[] types, NumberText[] numberText, PrimitiveType[] logical, String[] textHints) {
        this(types, numberText, logical, textHints, new KeyScale[types.length]);
    }

    /** Keys read as {@code reads[c]} (null: a text column), with {@code textHints[c]} for their messages. */
    static KeyReading of(KeyType[] reads, String[] textHints) {
        ColumnType[] types = new ColumnType[reads.length];
        NumberText[] numberText = new NumberText[reads.length];
        PrimitiveType[] logical = new PrimitiveType[reads.length];
        KeyScale[] scales = new KeyScale[reads.length];
        for (int c = 0; c < reads.length; c++) {
            types[c] = reads[c] == null ? null : reads[c].type();
            numberText[c] = reads[c] == null ? null : reads[c].numberText();
            logical[c] = reads[c] == null ? null : reads[c].logical();
            scales[c] = reads[c] == null ? null : reads[c].scale();
        }
        return new KeyReading(types, numberText, logical, textHints.clone(), scales);
    }

    /** Keys read as {@code types}, none as number text or a logical type, with no hint. */
    static KeyReading of(ColumnType[] types) {
        return new KeyReading(types.clone(), new NumberText[types.length], new PrimitiveType[types.length],
                new String[types.length]);
    }

    int columns() {
        return types.length;
    }
}
