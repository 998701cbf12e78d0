package dev.spilljoin.spill;

/**
 * Thrown when a join cannot get even the minimum memory it needs to run; the message says how much and why. Subclasses
 * carry the details of particular cases (a single row too large for the budget).
 */
public class MemoryExhaustedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MemoryExhaustedException(String message) {
        super(message);
    }
}
