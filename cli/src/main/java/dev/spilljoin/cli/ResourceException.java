package dev.spilljoin.cli;

import java.io.IOException;

/** The machine ran short: disk full, an unwritable spill or output directory (exit 4). */
public final class ResourceException extends CliException {
    private static final long serialVersionUID = 1L;

    public ResourceException(String message) {
        super(message, null);
    }

    public ResourceException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public int exitCode() {
        return ExitCodes.RESOURCES;
    }

    /**
     * Classifies a failed write to {@code what}: "No space left on device" and permission failures are resource
     * failures; anything else is returned as a resource failure too, since a write that fails for another reason
     * (I/O error, quota, read-only file system) is also the machine's doing, not the input's.
     */
    public static ResourceException writeFailed(String what, IOException cause) {
        String reason = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        String hint = reason.contains("No space left")
                ? "free disk space or point it at a larger disk"
                : "check that the directory exists and is writable";
        return new ResourceException("cannot write " + what + ": " + reason + "; " + hint, cause);
    }
}
