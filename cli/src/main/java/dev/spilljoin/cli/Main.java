package dev.spilljoin.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.channels.ClosedByInterruptException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/**
 * Entry point of the {@code spilljoin} command: parses the command line with picocli, runs the command, and
 * turns every failure into one line on stderr and an exit code ({@link ExitCodes}).
 *
 * <p>Ctrl-C: a shutdown hook cancels the running join and interrupts the command ({@link Cancellation}), then
 * waits (up to {@value #CLEANUP_SECONDS} s) for its cleanup (the join deleting its spill directory,
 * try-with-resources deleting the uncommitted output) before the JVM exits with 130.
 */
public final class Main {
    private static final int CLEANUP_SECONDS = 10;

    private Main() {
    }

    public static void main(String[] args) {
        if (System.getProperty("slf4j.internal.verbosity") == null) {
            System.setProperty("slf4j.internal.verbosity", "ERROR"); // Chronicle logs through SLF4J; none is bundled
        }
        Cancellation cancellation = new Cancellation(Thread.currentThread());
        CountDownLatch finished = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            cancellation.cancel();
            try {
                finished.await(CLEANUP_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "spilljoin-interrupt");
        Runtime.getRuntime().addShutdownHook(hook);
        int code;
        try {
            code = run(args, System.out, System.err, new FileOutputStream(FileDescriptor.out), cancellation);
        } finally {
            finished.countDown();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            return; // Ctrl-C: the JVM is already exiting (with 130); System.exit now would block forever
        }
        System.exit(code);
    }

    /** Runs the command line {@code args}, printing to {@code out}/{@code err}; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, out, err, out, Cancellation.NONE);
    }

    /**
     * As {@link #run(String[], PrintStream, PrintStream)}, with the joined rows (without {@code --output}) going
     * to {@code rows} (the process passes standard output unwrapped, since a {@link PrintStream} would hide a
     * full disk or a closed pipe), and the join cancellable through {@code cancellation}.
     */
    static int run(String[] args, PrintStream out, PrintStream err, OutputStream rows, Cancellation cancellation) {
        CommandLine commandLine = new CommandLine(new SpilljoinCommand());
        JoinCommand join = (JoinCommand) commandLine.getSubcommands().get("join").getCommand();
        join.stdout = rows;
        join.cancellation = cancellation;
        ((DemoCommand) commandLine.getSubcommands().get("demo").getCommand()).cancellation = cancellation;
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        commandLine.setParameterExceptionHandler((e, arguments) -> {
            CommandLine command = e.getCommandLine();
            String name = command.getCommandSpec().qualifiedName();
            err.println(name + ": " + e.getMessage() + " (see '" + name + " --help')");
            return ExitCodes.USAGE;
        });
        commandLine.setExecutionExceptionHandler((e, command, parseResult) -> report(e, err));
        return commandLine.execute(args);
    }

    /** Prints {@code failure} as one line and returns its exit code. */
    static int report(Exception failure, PrintStream err) {
        if (wasInterrupted(failure)) {
            err.println("spilljoin: interrupted; the files it had started were deleted");
            return ExitCodes.INTERRUPTED;
        }
        if (failure instanceof CliException cli) {
            err.println("spilljoin: " + cli.getMessage());
            return cli.exitCode();
        }
        err.println("spilljoin: internal error: " + failure + "; please report it with the command line used");
        if (Boolean.getBoolean("spilljoin.debug")) {
            failure.printStackTrace(err);
        }
        return ExitCodes.INTERNAL;
    }

    private static boolean wasInterrupted(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException || t instanceof ClosedByInterruptException
                    || t instanceof InterruptedIOException || t instanceof CancellationException) {
                return true;
            }
        }
        return Thread.currentThread().isInterrupted();
    }
}
