package dev.spilljoin.spill;

/** Thrown when a join cannot get even the minimum memory it needs to run; the message says how much and why. */
public final class MemoryExhaustedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MemoryExhaustedException(String message) {
        super(message);
    }
}
