package dev.spilljoin.operator;

/**
 * The outcome of reserving an optional helper (the key sketches, the build-key filter) before the build: the helper
 * or null, the note the stats show ("on", or why it is off) and the bytes it reserved.
 */
record Reserved<T>(T value, String note, long bytes) {
    static <T> Reserved<T> on(T value, long bytes) {
        return new Reserved<>(value, "on", bytes);
    }

    static <T> Reserved<T> off(String why) {
        return new Reserved<>(null, "off: " + why, 0);
    }
}
