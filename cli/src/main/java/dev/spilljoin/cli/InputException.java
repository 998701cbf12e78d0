package dev.spilljoin.cli;

/** An input file is missing, unreadable or malformed, or a value does not fit its column's type (exit 3). */
public final class InputException extends CliException {
    private static final long serialVersionUID = 1L;

    public InputException(String message) {
        super(message, null);
    }

    public InputException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public int exitCode() {
        return ExitCodes.INPUT;
    }
}
