package dev.spilljoin.cli;

import java.io.InterruptedIOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.channels.ClosedByInterruptException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/**
 * Entry point of the {@code spilljoin} command: parses the command line with picocli, runs the command, and
 * turns every failure into one line on stderr and an exit code ({@link ExitCodes}).
 *
 * <p>Ctrl-C: a shutdown hook interrupts the running command and waits (up to {@value #CLEANUP_SECONDS} s) for
 * its cleanup (try-with-resources closing the output and spill files) before the JVM exits with 130.
 */
public final class Main {
    private static final int CLEANUP_SECONDS = 10;

    private Main() {
    }

    public static void main(String[] args) {
        Thread worker = Thread.currentThread();
        CountDownLatch finished = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            worker.interrupt();
            try {
                finished.await(CLEANUP_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "spilljoin-interrupt");
        Runtime.getRuntime().addShutdownHook(hook);
        int code;
        try {
            code = run(args, System.out, System.err);
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
        CommandLine commandLine = new CommandLine(new SpilljoinCommand());
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
        if (failure instanceof UnsupportedOperationException) {
            err.println("spilljoin: not implemented: " + failure.getMessage());
            return ExitCodes.INTERNAL;
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
                    || t instanceof InterruptedIOException) {
                return true;
            }
        }
        return Thread.currentThread().isInterrupted();
    }
}
