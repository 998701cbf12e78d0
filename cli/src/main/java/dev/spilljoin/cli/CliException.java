package dev.spilljoin.cli;

/**
 * A failure the command reports as one line on stderr (what went wrong, where, how to fix it) and an exit code
 * from {@link ExitCodes}. Each subclass fixes the code, so a thrower only chooses the kind of failure.
 */
public abstract sealed class CliException extends RuntimeException
        permits UsageException, InputException, ResourceException {
    private static final long serialVersionUID = 1L;

    /** {@code message} may quote input bytes: its control characters and non-UTF-8 bytes are escapes in the line. */
    CliException(String message, Throwable cause) {
        super(RawText.printable(message), cause);
    }

    /** The process exit code for this failure. */
    public abstract int exitCode();
}
