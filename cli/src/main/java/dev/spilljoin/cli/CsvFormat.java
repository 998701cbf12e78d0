package dev.spilljoin.cli;

/**
 * How a CSV file is laid out: a one-byte field delimiter and whether the first record is a header.
 * The quote character is always {@code "} (RFC 4180).
 */
public record CsvFormat(byte delimiter, boolean header) {
    public static final byte QUOTE = '"';
    public static final CsvFormat DEFAULT = new CsvFormat((byte) ',', true);

    public CsvFormat {
        if (delimiter == QUOTE || delimiter == '\r' || delimiter == '\n') {
            throw new UsageException("the delimiter cannot be a quote, CR or LF; pick another with --delimiter");
        }
    }

    /**
     * Parses a {@code --delimiter} value: one ASCII character, or {@code \t} / {@code tab} for a tab.
     */
    public static byte parseDelimiter(String text) {
        if (text.equals("\\t") || text.equalsIgnoreCase("tab")) {
            return '\t';
        }
        if (text.length() != 1 || text.charAt(0) > 127) {
            throw new UsageException("--delimiter '" + text + "' must be exactly one ASCII character (or \\t for tab),"
                    + " for example --delimiter ';'");
        }
        return (byte) text.charAt(0);
    }
}
