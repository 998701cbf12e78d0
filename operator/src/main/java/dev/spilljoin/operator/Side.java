package dev.spilljoin.operator;

/** The caller's names for the two inputs of a join. */
public enum Side {
    LEFT,
    RIGHT;

    public Side other() {
        return this == LEFT ? RIGHT : LEFT;
    }
}
