package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatsJsonTest {
    @TempDir
    Path dir;

    @Test
    void rendersFieldsInOrderWithEscaping() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("build_side", "left");
        fields.put("budget_bytes", 16L << 20);
        fields.put("partitions", 8);
        fields.put("ratio", 0.5);
        fields.put("spilled", true);
        fields.put("note", "a \"q\"\\\n\u0001");
        fields.put("unknown", null);
        fields.put("join", new StatsJson.Json("{\"rows\":1}"));
        assertThat(StatsJson.render(fields)).isEqualTo("{\n"
                + "  \"build_side\": \"left\",\n"
                + "  \"budget_bytes\": 16777216,\n"
                + "  \"partitions\": 8,\n"
                + "  \"ratio\": 0.5,\n"
                + "  \"spilled\": true,\n"
                + "  \"note\": \"a \\\"q\\\"\\\\\\n\\u0001\",\n"
                + "  \"unknown\": null,\n"
                + "  \"join\": {\"rows\":1}\n"
                + "}\n");
    }

    @Test
    void rejectsValuesJsonCannotHold() {
        assertThatThrownBy(() -> StatsJson.render(Map.of("x", Double.NaN)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stats field 'x'");
    }

    @Test
    void writesTheWholeFileAndNothingElse() throws IOException {
        Path file = dir.resolve("stats.json");
        try (AtomicOutputFile output = AtomicOutputFile.create(file, "the stats file")) {
            StatsJson.write(output, Map.of("rows_out", 3L));
        }
        assertThat(Files.readString(file)).isEqualTo("{\n  \"rows_out\": 3\n}\n");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files).containsExactly(file);
        }
    }
}
