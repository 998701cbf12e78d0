package dev.spilljoin.spill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spilljoin.spill.NativeMemory.NativePage;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Copies between byte arrays and off-heap memory, at every length around the switch from word copies to
 * {@code Unsafe.copyMemory} and at every offset within a word: the bytes arrive in order, and not one byte before or
 * after either range changes.
 */
class NativeMemoryTest {
    @Test
    void arrayCopiesMoveExactlyTheirBytesAtEveryLengthAndOffset() {
        try (MemoryReservation memory = MemoryReservation.root("test", 1 << 20)) {
            assertThat(memory.tryGrow(4096)).isTrue();
            NativePage page = NativeMemory.allocate(memory, 4096);
            long base = page.address();
            for (int length = 0; length <= 80; length++) {
                for (int offset = 0; offset < 9; offset++) {
                    byte[] source = new byte[offset + length + 9];
                    for (int i = 0; i < source.length; i++) {
                        source[i] = (byte) (i * 31 + length);
                    }
                    NativeMemory.fill(base, 256, (byte) 0x5A);
                    NativeMemory.copyFromArray(source, offset, base + 64 + offset, length);
                    for (int i = 0; i < 256; i++) {
                        int at = i - 64 - offset;
                        byte expected = at >= 0 && at < length ? source[offset + at] : (byte) 0x5A;
                        assertThat(NativeMemory.getByte(base + i)).as("native byte %d, length %d, offset %d", i,
                                length, offset).isEqualTo(expected);
                    }
                    byte[] target = new byte[offset + length + 9];
                    Arrays.fill(target, (byte) 0x77);
                    NativeMemory.copyToArray(base + 64 + offset, target, offset, length);
                    for (int i = 0; i < target.length; i++) {
                        int at = i - offset;
                        byte expected = at >= 0 && at < length ? source[offset + at] : (byte) 0x77;
                        assertThat(target[i]).as("array byte %d, length %d, offset %d", i, length, offset)
                                .isEqualTo(expected);
                    }
                }
            }
            page.close();
            memory.shrink(4096);
        }
    }

    @Test
    void aFreedHugePageIsReusedZeroedAndReleasedOnRequest() {
        long bytes = NativeMemory.HUGE_PAGE + 3 * NativeMemory.SMALL_PAGE;
        try (MemoryReservation memory = MemoryReservation.root("test", 4 * bytes)) {
            assertThat(memory.tryGrow(bytes)).isTrue();
            NativePage first = NativeMemory.allocate(memory, bytes);
            NativeMemory.fill(first.address(), bytes, (byte) 0x5A);
            long address = first.address();
            first.close();
            memory.shrink(bytes);
            assertThat(NativeMemory.cachedHugePageBytes()).isGreaterThanOrEqualTo(bytes);
            assertThat(memory.tryGrow(bytes)).isTrue();
            NativePage second = NativeMemory.allocate(memory, bytes);
            assertThat(second.address()).as("the freed mapping, reused").isEqualTo(address);
            for (long at = 0; at < bytes; at += 8) {
                assertThat(NativeMemory.getLong(second.address() + at)).as("byte %d", at).isZero();
            }
            second.close();
            memory.shrink(bytes);
            assertThat(NativeMemory.releaseCachedHugePages()).isGreaterThanOrEqualTo(bytes);
            assertThat(NativeMemory.cachedHugePageBytes()).isZero();
        }
    }

    /**
     * From {@link NativeMemory#MAPPED_FROM} bytes up a page is a mapping of its own (below 2 MiB not of huge pages),
     * freed into the cache and handed to the next page of its length, zeroed; below, it is malloc's and not cached.
     */
    @Test
    void aFreedPageFromSixtyFourKibibytesUpIsReusedZeroed() {
        long bytes = NativeMemory.MAPPED_FROM + NativeMemory.SMALL_PAGE;
        try (MemoryReservation memory = MemoryReservation.root("test", 4 * bytes)) {
            NativeMemory.releaseCachedHugePages();
            assertThat(memory.tryGrow(bytes)).isTrue();
            NativePage first = NativeMemory.allocate(memory, bytes);
            NativeMemory.fill(first.address(), bytes, (byte) 0x5A);
            long address = first.address();
            first.close();
            assertThat(NativeMemory.cachedHugePageBytes()).isEqualTo(bytes);
            NativePage second = NativeMemory.allocate(memory, bytes);
            assertThat(second.address()).as("the freed mapping, reused").isEqualTo(address);
            assertThat(NativeMemory.cachedHugePageBytes()).isZero();
            for (long at = 0; at < bytes; at += 8) {
                assertThat(NativeMemory.getLong(second.address() + at)).as("byte %d", at).isZero();
            }
            second.close();
            memory.shrink(bytes);
            long below = NativeMemory.MAPPED_FROM - 8;
            assertThat(memory.tryGrow(below)).isTrue();
            NativeMemory.allocate(memory, below).close();
            assertThat(NativeMemory.cachedHugePageBytes()).as("malloc's, not cached").isEqualTo(bytes);
            memory.shrink(below);
            assertThat(NativeMemory.releaseCachedHugePages()).isEqualTo(bytes);
        }
    }

    /**
     * Memory allocated uninitialized is left as it is, which the tests' JVMs (the build's surefire configuration sets
     * {@value NativeMemory#POISON_PROPERTY}) make 0xA5 bytes throughout, fresh or recycled, small or a huge page; a
     * zeroed allocation of the same recycled huge page is zeros again. Both are accounted as any allocation.
     */
    @Test
    void uninitializedMemoryIsPoisonedInTestsAndZeroedMemoryStaysZeroed() {
        assertThat(Boolean.getBoolean(NativeMemory.POISON_PROPERTY)).as("the tests' JVM poisons").isTrue();
        long huge = NativeMemory.HUGE_PAGE;
        try (MemoryReservation memory = MemoryReservation.root("test", 4 * huge)) {
            for (long bytes : new long[] {4096, huge}) {
                for (int round = 0; round < 2; round++) { // the second huge page is the first one, recycled
                    assertThat(memory.tryGrow(bytes)).isTrue();
                    NativePage page = NativeMemory.allocateUninitialized(memory, bytes);
                    assertThat(memory.allocated()).isEqualTo(bytes);
                    for (long at = 0; at < bytes; at += 8) {
                        assertThat(NativeMemory.getLong(page.address() + at)).as("%d bytes, byte %d", bytes, at)
                                .isEqualTo(0xA5A5A5A5A5A5A5A5L);
                    }
                    NativeMemory.fill(page.address(), bytes, (byte) 0x5A);
                    page.close();
                    memory.shrink(bytes);
                    assertThat(memory.allocated()).isZero();
                }
            }
            assertThat(memory.tryGrow(huge)).isTrue();
            NativePage zeroed = NativeMemory.allocate(memory, huge);
            for (long at = 0; at < huge; at += 8) {
                assertThat(NativeMemory.getLong(zeroed.address() + at)).as("byte %d", at).isZero();
            }
            zeroed.close();
            memory.shrink(huge);
        }
    }
}
