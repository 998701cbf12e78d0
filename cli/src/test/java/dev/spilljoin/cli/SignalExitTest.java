package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link SignalExit#shutdownStarted()}, which tells {@code Main} that a command's failure came from a signal whose
 * hook has not cancelled it yet: false while the process runs, true in a shutdown hook. Seen from a forked JVM
 * ({@link #main}), which prints both and exits.
 */
class SignalExitTest {

    @Test
    void shutdownStartedOnlyOnceTheJvmShutsDown() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                SignalExitTest.class.getName()).redirectErrorStream(true).start();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child ended").isTrue();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(output.lines().toList()).as(output).isEqualTo(List.of("running: false", "in a hook: true"));
        assertThat(child.exitValue()).isZero();
    }

    /** The child: whether shutdown has started, while running and then from a shutdown hook. */
    public static void main(String[] args) {
        System.out.println("running: " + SignalExit.shutdownStarted());
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
                System.out.println("in a hook: " + SignalExit.shutdownStarted())));
        System.exit(0);
    }
}
