package dev.spilljoin.cli;

import dev.spilljoin.estimator.JsonStrings;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Writes the {@code --stats} file: one flat JSON object whose fields keep the map's order. Values are
 * {@link Long}/{@link Integer}, finite {@link Double}, {@link Boolean}, {@link String} (escaped per RFC 8259),
 * null (a figure the join does not report), or {@link Json} (a JSON value rendered elsewhere, nested as is).
 * A regular file is written through an {@link AtomicOutputFile}, so it appears whole or not at all.
 */
public final class StatsJson {
    private StatsJson() {
    }

    /** A value that is already JSON text (e.g. the operator's own stats object), written as it is. */
    public record Json(String text) {
    }

    /** The JSON text for {@code fields}, pretty-printed one field per line. */
    public static String render(Map<String, ?> fields) {
        StringBuilder json = new StringBuilder("{\n");
        int i = 0;
        for (Map.Entry<String, ?> field : fields.entrySet()) {
            json.append("  ");
            JsonStrings.append(json, field.getKey());
            json.append(": ");
            value(json, field.getKey(), field.getValue());
            json.append(++i < fields.size() ? ",\n" : "\n");
        }
        return json.append("}\n").toString();
    }

    /** Writes {@code fields} to {@code file} and commits it; the caller closes it. */
    static void write(OutputFile file, Map<String, ?> fields) {
        try {
            file.stream().write(render(fields).getBytes(StandardCharsets.UTF_8));
            file.commit();
        } catch (IOException e) {
            throw ResourceException.writeFailed(file.description(), e);
        }
    }

    private static void value(StringBuilder json, String name, Object value) {
        if (value == null) {
            json.append("null");
        } else if (value instanceof Json nested) {
            json.append(nested.text());
        } else if (value instanceof Long || value instanceof Integer || value instanceof Boolean) {
            json.append(value);
        } else if (value instanceof Double d && Double.isFinite(d)) {
            json.append(d);
        } else if (value instanceof String s) {
            JsonStrings.append(json, s);
        } else {
            throw new IllegalArgumentException("stats field '" + name + "' has a value JSON cannot hold: " + value);
        }
    }

}
