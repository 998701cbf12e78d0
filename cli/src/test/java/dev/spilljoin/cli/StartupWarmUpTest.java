package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@link StartupWarmUp}: parquet-java is warmed when an argument names Parquet (a file by its extension, any case, or
 * the format's value, separate or after {@code =}), and not for a command line of CSV files only; the warm-up thread
 * ends on its own.
 */
class StartupWarmUpTest {
    @Test
    void parquetIsWarmedWhenAnArgumentNamesIt() {
        assertThat(StartupWarmUp.mentionsParquet(new String[] {"join", "--left", "o.PARQUET", "--right", "c.csv"}))
                .isTrue();
        assertThat(StartupWarmUp.mentionsParquet(new String[] {"join", "--left-format", "parquet"})).isTrue();
        assertThat(StartupWarmUp.mentionsParquet(new String[] {"join", "--output-format=parquet"})).isTrue();
        assertThat(StartupWarmUp.mentionsParquet(new String[] {"join", "--left", "parquet.csv", "--right", "r.csv",
                "--output", "parquet-out.csv"})).isFalse();
    }

    @Test
    void theWarmUpThreadEndsOnItsOwn() throws InterruptedException {
        Thread thread = StartupWarmUp.start(new String[] {"join", "--left", "a.parquet"});
        assertThat(thread.isDaemon()).isTrue();
        thread.join(60_000);
        assertThat(thread.isAlive()).isFalse();
    }
}
