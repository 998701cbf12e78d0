package dev.spilljoin.operator.row;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The hash functions of the join, all derived from one 64-bit key hash {@code H} that is computed per batch (by
 * {@link KeyHasher}); a serialized row with a variable-width field stores it, so that spilling, reloading and
 * re-partitioning never hash a string again, and a fixed-width row recomputes it from its key fields
 * ({@link RowLayout#hash}: a multiply and a mix per field, cheaper than 8 bytes per row in memory and on disk).
 *
 * <pre>
 *   H            = KeyHasher: per key column  h = fmix64(h ^ (value * GOLDEN)), h starting at KEY_SEED
 *   h1(H, level) = fmix64(H ^ levelSeed(level))         partition choice; take the top bits (partitionOf)
 *   h2(H)        = the top bits of H itself              slot within a directory range of an UnchainedTable
 *   tag(H)       = two bits out of 16 chosen by H's low 8 bits   slot filter in the directory entry
 * </pre>
 *
 * <p>Independence: fmix64 is a bijective avalanche mix (murmur3's finalizer), so the bits of {@code h1} at any level
 * are unrelated to the bits of {@code H}: the rows of one partition (equal top bits of h1) still spread over all
 * slots of their table's range, and level {@code n+1} (a different seed) splits a partition of level {@code n}. Keys with
 * equal {@code H} cannot be split by any level; only heavy hitters (equal keys) or a 2^-64 collision get there.
 *
 * <p>For a single fixed-width key column {@code H} is a bijection of the (normalized) key value: multiplication by
 * an odd constant, xor with a seed and fmix64 are all bijective. Equal {@code H} therefore means equal keys (which
 * heavy-key routing relies on); the table, whose rows carry no hash, compares such keys by value instead.
 */
public final class HashFunctions {
    /** Seed of the key hash H. */
    public static final long KEY_SEED = 0x2545F4914F6CDD1DL;
    public static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final long LEVEL_SEED = 0xD6E8FEB86659FD93L;
    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P5 = 0x27D4EB2F165667C5L;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private HashFunctions() {
    }

    /** murmur3's 64-bit finalizer: a bijection with full avalanche. */
    public static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xFF51AFD7ED558CCDL;
        k ^= k >>> 33;
        k *= 0xC4CEB9FE1A85EC53L;
        k ^= k >>> 33;
        return k;
    }

    /**
     * The key hash H of a single integer key {@code value} (an INTEGER sign-extended), as {@link KeyHasher} folds a
     * one-column key.
     */
    public static long singleKeyHash(long value) {
        return combine(KEY_SEED, value);
    }

    /** Folds one key column's value (or its byte hash) into the running key hash. */
    public static long combine(long hash, long value) {
        return fmix64(hash ^ (value * GOLDEN));
    }

    /** h1: the partition hash of stored hash {@code hash} at recursion level {@code level} (0, 1, 2, ...). */
    public static long partitionHash(long hash, int level) {
        return fmix64(hash ^ (LEVEL_SEED * (level + 1)));
    }

    /** The partition (0 .. 2^bits - 1) of a row at {@code level}: the top {@code bits} bits of h1. */
    public static int partitionOf(long hash, int level, int bits) {
        return bits == 0 ? 0 : (int) (partitionHash(hash, level) >>> (64 - bits));
    }

    /** h2: the slot (0 .. 2^bits - 1) within a table's directory range of 2^bits slots; the top bits of H. */
    public static int bucketOf(long hash, int bits) {
        return (int) (hash >>> (64 - bits));
    }

    /** The directory tag of H: two bits of a 16-bit slot filter, chosen by H's low 8 bits (left-aligned). */
    public static long tagOf(long hash) {
        return (1L << (48 + (int) (hash & 15))) | (1L << (48 + (int) ((hash >>> 4) & 15)));
    }

    /**
     * DOUBLE key normalization: -0.0 becomes 0.0 and every NaN the canonical NaN, so that -0.0 joins 0.0 and NaN
     * joins NaN (as SQL engines group them). Used for hashing and for the stored key bytes.
     */
    public static long normalizedDoubleBits(double value) {
        if (value == 0.0) {
            return 0L;
        }
        return Double.doubleToLongBits(value);
    }

    /** An xxHash64-style hash of {@code length} bytes, 8 bytes per step. */
    public static long hashBytes(byte[] bytes, int offset, int length) {
        long h = P5 ^ (length * P1);
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            long w = (long) LONGS.get(bytes, offset + i);
            h = Long.rotateLeft(h ^ (w * P2), 31) * P1;
        }
        if (i + 4 <= length) {
            h ^= ((int) INTS.get(bytes, offset + i) & 0xFFFFFFFFL) * P1;
            h = Long.rotateLeft(h, 23) * P2 + P3;
            i += 4;
        }
        for (; i < length; i++) {
            h ^= (bytes[offset + i] & 0xFFL) * P5;
            h = Long.rotateLeft(h, 11) * P1;
        }
        return fmix64(h);
    }

    /** A native-order long of {@code bytes} at {@code offset} (used by key comparison). */
    public static long longAt(byte[] bytes, int offset) {
        return (long) LONGS.get(bytes, offset);
    }

    public static void putLongAt(byte[] bytes, int offset, long value) {
        LONGS.set(bytes, offset, value);
    }

    public static void putIntAt(byte[] bytes, int offset, int value) {
        INTS.set(bytes, offset, value);
    }
}
