package dev.spilljoin.spill;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and formats memory sizes such as {@code 512kB}, {@code 64MB}, {@code 1GB}, {@code 1TB}, {@code 4096B}.
 *
 * <p>Units are 1024-based and case-insensitive ({@code B}, {@code kB}, {@code MB}, {@code GB}, {@code TB}).
 * A bare number or an unknown unit is rejected with a message that suggests the accepted units, because a
 * budget of "64" could mean bytes or megabytes and guessing wrong costs either memory or speed.
 */
public final class ByteSize {
    private static final Pattern SIZE = Pattern.compile("\\s*(\\d+)\\s*([a-zA-Z]*)\\s*");
    private static final String UNITS = "B, kB, MB, GB or TB (1024-based), for example 512kB, 64MB or 1GB";

    private ByteSize() {
    }

    /** Parses {@code text} into bytes; throws {@link IllegalArgumentException} naming the accepted units. */
    public static long parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("a size is required: give a number with one of the units " + UNITS);
        }
        Matcher m = SIZE.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a size: give a number with one of the units " + UNITS);
        }
        String unit = m.group(2).toUpperCase(Locale.ROOT);
        int shift;
        switch (unit) {
            case "B": shift = 0; break;
            case "KB": case "K": shift = 10; break;
            case "MB": case "M": shift = 20; break;
            case "GB": case "G": shift = 30; break;
            case "TB": case "T": shift = 40; break;
            case "":
                throw new IllegalArgumentException("'" + text + "' has no unit: write it with one of the units " + UNITS);
            default:
                throw new IllegalArgumentException("'" + text + "' has an unknown unit '" + m.group(2)
                        + "': use one of the units " + UNITS);
        }
        long value;
        try {
            value = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is too large a size", e);
        }
        if (value > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("'" + text + "' is too large a size (at most 8EB)");
        }
        return value << shift;
    }

    /** Formats bytes with the largest unit that keeps one decimal, e.g. {@code 1.5MB}; exact bytes below 1kB. */
    public static String format(long bytes) {
        if (bytes < 1024) {
            return bytes + "B";
        }
        String[] units = {"kB", "MB", "GB", "TB", "PB", "EB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return (value == Math.rint(value) ? String.valueOf((long) value) : String.format(Locale.ROOT, "%.1f", value))
                + units[unit];
    }
}
