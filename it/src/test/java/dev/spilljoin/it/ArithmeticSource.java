package dev.spilljoin.it;

import dev.spilljoin.operator.data.Column;
import dev.spilljoin.operator.data.ColumnType;
import dev.spilljoin.operator.data.Schema;
import dev.spilljoin.operator.testing.GeneratedSource;

/**
 * A two-column input {@code (k BIGINT, p BIGINT)} generated on the fly (the operator tests' {@link GeneratedSource}),
 * row {@code i} in {@code [0, rows)} being {@code k = i % keys}, {@code p = (i * multiplier + addend) % modulus}:
 * formulas every SQL engine computes the same way, so that an oracle builds the very same table with
 * {@code range}/{@code generate_series} instead of loading it.
 */
final class ArithmeticSource extends GeneratedSource {
    private final long keys;
    private final long multiplier;
    private final long addend;
    private final long modulus;

    ArithmeticSource(String prefix, long rows, long keys, long multiplier, long addend, long modulus) {
        super(schema(prefix), rows);
        this.keys = keys;
        this.multiplier = multiplier;
        this.addend = addend;
        this.modulus = modulus;
    }

    static Schema schema(String prefix) {
        return Schema.of(Column.of(prefix + "k", ColumnType.BIGINT), Column.of(prefix + "p", ColumnType.BIGINT));
    }

    /** The same rows as SQL over an integer {@code i}: {@code i % keys AS k, (i * m + a) % mod AS p}. */
    String sqlColumns(String i) {
        return i + " % " + keys + " AS k, (" + i + " * " + multiplier + " + " + addend + ") % " + modulus + " AS p";
    }

    @Override
    protected long key(long i) {
        return i % keys;
    }

    @Override
    protected long payload(long i) {
        return (i * multiplier + addend) % modulus;
    }
}
