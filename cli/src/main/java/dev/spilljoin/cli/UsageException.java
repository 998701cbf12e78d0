package dev.spilljoin.cli;

/** The command line is wrong: a bad flag or value, an unknown column, a bad size, mismatched key types (exit 2). */
public final class UsageException extends CliException {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message, null);
    }

    public UsageException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public int exitCode() {
        return ExitCodes.USAGE;
    }
}
