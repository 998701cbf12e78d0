package dev.spilljoin.bench;

import java.util.Locale;

/**
 * The memory settings of docs/WORKLOADS.md. Tight: 32 B x nR, so the build side's hash table cannot fit and must
 * spill. Generous: 512 B x nR (16 x tight; 512 MB small, 5 GB large), several times what DuckDB's and
 * PostgreSQL's hash tables need for R's 16-byte rows, so the whole build side fits in every engine.
 */
public enum MemorySetting {
    GENEROUS(512),
    TIGHT(32);

    private final long bytesPerBuildRow;

    MemorySetting(long bytesPerBuildRow) {
        this.bytesPerBuildRow = bytesPerBuildRow;
    }

    public long bytes(Scale scale) {
        return bytesPerBuildRow * scale.nR();
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static MemorySetting named(String name) {
        for (MemorySetting budget : values()) {
            if (budget.label().equalsIgnoreCase(name.trim())) {
                return budget;
            }
        }
        throw new IllegalArgumentException("unknown setting '" + name.trim() + "': use generous or tight");
    }
}
