package dev.spilljoin.estimator;

/**
 * Writes a Java string as a JSON string literal (quotes, backslashes and control characters escaped). It lives here,
 * in the lowest module that renders JSON (the estimates), so that the join's and the command's stats writers share
 * one escaping rule.
 */
public final class JsonStrings {
    private JsonStrings() {
    }

    /** Appends {@code value} to {@code json} as a quoted, escaped JSON string. */
    public static void append(StringBuilder json, String value) {
        json.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }
}
