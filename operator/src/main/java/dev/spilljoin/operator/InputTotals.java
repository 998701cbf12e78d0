package dev.spilljoin.operator;

/**
 * Join-wide facts the spilled pairs need about both inputs, known once the probe input has ended: rows read and
 * rows with a NULL key, per side (a pair's finish pass asks whether the other side was empty or had a NULL key).
 */
record InputTotals(long buildRows, long buildNullKeyRows, long probeRows, long probeNullKeyRows) {
}
