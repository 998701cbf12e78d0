package dev.spilljoin.bench;

import java.io.IOException;
import java.sql.SQLException;

/**
 * A join engine the runner times on the workloads: DuckDB, PostgreSQL, and (once the operator exists) spilljoin.
 *
 * <p>Life cycle: {@link #load} each table (untimed; the runner skips a load when the engine already holds a table
 * with the same {@link TableSource#id()}), then per workload and memory budget one {@link #profile} (the untimed
 * warm-up, which also reports memory, spill and plan where the engine tells), then {@link #run} several times
 * (timed: only the join), then {@link #close} (drops everything the engine created, idempotent).
 */
public interface Engine extends AutoCloseable {

    /** A short lower-case name: the column and JSON key of this engine. */
    String name();

    /** Replaces table {@code rows.role().tableName()} with the given rows. Untimed. */
    void load(TableSource rows) throws Exception;

    /** Runs the workload's query once under {@code budgetBytes} and reports what the engine tells about it. */
    EngineProfile profile(Workload workload, long budgetBytes) throws Exception;

    /** Runs the workload's query once under {@code budgetBytes}, timing only the query. */
    TimedRun run(Workload workload, long budgetBytes) throws Exception;

    @Override
    void close() throws IOException, SQLException;

    /**
     * One timed query: its result, the wall-clock nanoseconds from submitting it to reading its result, and what the
     * engine itself reported about the run as a JSON object (spilljoin: its {@code JoinStats}, phase times included),
     * or null when it reports nothing.
     */
    record TimedRun(JoinResult result, long nanos, String reportJson) {
        TimedRun(JoinResult result, long nanos) {
            this(result, nanos, null);
        }
    }
}
