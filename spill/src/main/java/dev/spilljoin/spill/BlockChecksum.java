package dev.spilljoin.spill;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import net.openhft.chronicle.core.UnsafeMemory;
import sun.misc.Unsafe;

/**
 * CRC32C of an off-heap byte range, using the JDK's intrinsic {@link CRC32C#update(ByteBuffer)} on a direct buffer
 * view that is re-pointed at the range (its address and capacity fields are set in place), so checksumming a block
 * allocates nothing and copies nothing.
 *
 * <p>Invariant: the view is only used inside {@link #of} and never escapes; one instance per writer or reader
 * (not thread-safe).
 */
final class BlockChecksum {
    private static final Unsafe UNSAFE = UnsafeMemory.UNSAFE;
    private static final long ADDRESS_FIELD = fieldOffset("address");
    private static final long CAPACITY_FIELD = fieldOffset("capacity");

    private final ByteBuffer view = ByteBuffer.allocateDirect(0);
    private final CRC32C crc = new CRC32C();

    private static long fieldOffset(String name) {
        try {
            Field field = Buffer.class.getDeclaredField(name);
            return UNSAFE.objectFieldOffset(field);
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError("java.nio.Buffer has no field '" + name + "' on this JVM: " + e);
        }
    }

    /** The CRC32C of {@code length} bytes at {@code address}. */
    int of(long address, int length) {
        UNSAFE.putLong(view, ADDRESS_FIELD, address);
        UNSAFE.putInt(view, CAPACITY_FIELD, length);
        view.clear();
        crc.reset();
        crc.update(view);
        UNSAFE.putLong(view, ADDRESS_FIELD, 0L);
        UNSAFE.putInt(view, CAPACITY_FIELD, 0);
        view.clear();
        return (int) crc.getValue();
    }
}
