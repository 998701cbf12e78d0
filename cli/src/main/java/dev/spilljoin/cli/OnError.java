package dev.spilljoin.cli;

/** What to do with a malformed row or a value that does not fit its type: stop ({@code fail}) or skip and count it. */
public enum OnError {
    FAIL,
    SKIP
}
