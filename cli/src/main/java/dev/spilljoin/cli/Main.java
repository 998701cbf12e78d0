package dev.spilljoin.cli;

import dev.spilljoin.spill.SpillSpace;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.channels.ClosedByInterruptException;
import java.util.concurrent.CancellationException;
import picocli.CommandLine;

/**
 * Entry point of the {@code spilljoin} command: parses the command line with picocli, runs the command, and
 * turns every failure into one line on stderr and an exit code ({@link ExitCodes}).
 *
 * <p>Ctrl-C or SIGTERM: a shutdown hook ({@link SignalExit}) undoes the running command's work at once through
 * {@link Cancellation} (the join's spill directory and the uncommitted output are deleted without waiting for the
 * command's thread), prints one line and halts with 130.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        if (System.getProperty("slf4j.internal.verbosity") == null) {
            System.setProperty("slf4j.internal.verbosity", "ERROR"); // Chronicle logs through SLF4J; none is bundled
        }
        // Loading the C library binding (jnr-ffi makes its classes at run time), the libraries' class initialization
        // the command will need (StartupWarmUp) and building the command model (picocli's reflection) each keep a
        // core busy for tens of milliseconds: done side by side. None touches a file of the user's, so all
        // may precede the hook; the binding must (see loadNativeLibrary). The warm-up is waited for before the
        // process exits, so that a command that ends at once does not exit in the middle of Chronicle Core's
        // initialization (see ChronicleOs in the spill module).
        Thread warmUp = StartupWarmUp.start(args);
        Thread nativeLoad = new Thread(Main::loadNativeLibrary, "spilljoin-native-load");
        nativeLoad.start();
        CommandLine commandLine = commandLine();
        StageThread.joinUninterruptibly(nativeLoad);
        Cancellation cancellation = new Cancellation(Thread.currentThread());
        SignalExit signalExit = new SignalExit(cancellation, System.err);
        Thread hook = signalExit.hook();
        Runtime.getRuntime().addShutdownHook(hook);
        int code = ExitCodes.INTERNAL;
        boolean endedFirst;
        boolean stoppedByShutdown = false;
        try {
            code = run(commandLine, args, System.out, System.err, new FileOutputStream(FileDescriptor.out),
                    cancellation);
        } catch (RuntimeException | Error e) {
            // e.g. a class whose initialisation registers a shutdown hook (Chronicle's resource releaser), failing
            // under the signal, maybe before the hook has cancelled the command: the hook reports and exits; this
            // thread stays silent
            boolean cancelled = cancellation.isCancelled();
            stoppedByShutdown = !cancelled && SignalExit.shutdownStarted();
            if (!cancelled && !stoppedByShutdown) {
                throw e;
            }
        } finally {
            StageThread.joinUninterruptibly(warmUp);
            if (stoppedByShutdown) {
                signalExit.commandStoppedByShutdown();
                endedFirst = false;
            } else {
                endedFirst = signalExit.commandEnded(code);
            }
        }
        if (!endedFirst) {
            return; // a signal took over: its hook exits with 130
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            return; // a signal came after the command ended: the hook exits with the command's code
        }
        System.exit(code);
    }

    private static void loadNativeLibrary() {
        try {
            SpillSpace.loadNativeLibrary();
        } catch (LinkageError unsupported) {
            // a join that spills reports it
        }
    }

    /** The command model: the commands, their options and parameters, read from their annotations. */
    private static CommandLine commandLine() {
        return new CommandLine(new SpilljoinCommand());
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
        return run(commandLine(), args, out, err, rows, cancellation);
    }

    /** As {@link #run(String[], PrintStream, PrintStream, OutputStream, Cancellation)} with a model built already. */
    private static int run(CommandLine commandLine, String[] args, PrintStream out, PrintStream err,
            OutputStream rows, Cancellation cancellation) {
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
        commandLine.setExecutionExceptionHandler((e, command, parseResult) ->
                cancellation.isCancelled() ? cancellation.reportOnce(err) : report(e, err));
        return commandLine.execute(args);
    }

    /** Prints {@code failure} as one line and returns its exit code. */
    static int report(Exception failure, PrintStream err) {
        if (wasInterrupted(failure)) {
            err.println(Cancellation.MESSAGE);
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
