package dev.spilljoin.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code --on} value: {@code lcol=rcol[,lcol2=rcol2…]} (a bare {@code col} means {@code col=col}), as
 * column names of the left and right file, in key order. A name may be spelled as messages print it
 * ({@link RawText#unescape}: {@code \xff} for a byte that is not UTF-8, {@code \x2c} for a comma, {@code \\} for a
 * backslash).
 */
public record KeyPairs(List<String> leftNames, List<String> rightNames) {
    public KeyPairs {
        leftNames = List.copyOf(leftNames);
        rightNames = List.copyOf(rightNames);
    }

    public int size() {
        return leftNames.size();
    }

    /** Parses an {@code --on} value; throws {@link UsageException} saying what is wrong. */
    public static KeyPairs parse(String text) {
        String example = " (example: --on id=customer_id or --on a=x,b=y)";
        if (text == null || text.isBlank()) {
            throw new UsageException("--on is empty: name the key columns as left=right" + example);
        }
        List<String> left = new ArrayList<>();
        List<String> right = new ArrayList<>();
        for (String pair : text.split(",", -1)) {
            int eq = pair.indexOf('=');
            String l = (eq < 0 ? pair : pair.substring(0, eq)).trim();
            String r = (eq < 0 ? pair : pair.substring(eq + 1)).trim();
            if (l.isEmpty() || r.isEmpty() || r.indexOf('=') >= 0) {
                throw new UsageException("--on pair '" + pair.trim() + "' is not of the form left_column=right_column"
                        + example);
            }
            left.add(RawText.unescape(l));
            right.add(RawText.unescape(r));
        }
        return new KeyPairs(left, right);
    }
}
