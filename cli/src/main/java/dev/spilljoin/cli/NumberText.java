package dev.spilljoin.cli;

/**
 * How a key column compared as exact number text is read: which grammar its fields must follow and which text it
 * is held (and compared and written) as. Such a key is a VARCHAR vector in the operator's batches, so that equal
 * numbers are equal bytes; the grammars are {@link ValueParser}'s.
 *
 * <p>The integer grammar has no {@code +} and no leading zero, so an integer's digits are already its canonical
 * text; only {@code -0} is held as {@code 0}.
 */
enum NumberText {
    /** An integer of any number of digits, held as read. */
    INTEGER,
    /** An integer within the BIGINT range, held as read. */
    BIGINT_RANGE,
    /**
     * A DOUBLE-grammar value (decimal or exponent form, {@code NaN}, {@code Infinity}) taken as the exact decimal it
     * writes: an integral value within the BIGINT range is held as its integer digits ({@code 1.0}, {@code 1e0} and
     * {@code 10e-1} become {@code 1}), any other value as read (it then equals no integer's digits: it holds a
     * {@code .}, an exponent, a letter, or more digits than a BIGINT).
     */
    DECIMAL
}
