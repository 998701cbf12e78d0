package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The Parquet writer's buffer pool: a buffer is exactly the size asked for over an array of its size class, a
 * released array serves the next request of its class, a second release of one buffer never hands its array out
 * twice, the free arrays stay within the bound, and an array larger than the kept size is not kept at all.
 */
class RecyclingAllocatorTest {
    @Test
    void buffersHaveTheSizeAskedForOverArraysOfTheirClass() {
        RecyclingAllocator allocator = new RecyclingAllocator(1 << 20, 1 << 20);
        ByteBuffer small = allocator.allocate(100);
        assertThat(small.capacity()).isEqualTo(100);
        assertThat(small.remaining()).isEqualTo(100);
        assertThat(small.arrayOffset()).isZero();
        assertThat(small.array()).hasSize(128);
        ByteBuffer large = allocator.allocate(RecyclingAllocator.LINEAR_FROM + 1);
        assertThat(large.capacity()).isEqualTo(RecyclingAllocator.LINEAR_FROM + 1);
        assertThat(large.array()).hasSize(2 * RecyclingAllocator.LINEAR_FROM);
        assertThat(RecyclingAllocator.sizeClass(0)).isEqualTo(16);
        assertThat(RecyclingAllocator.sizeClass(16)).isEqualTo(16);
        assertThat(RecyclingAllocator.sizeClass(17)).isEqualTo(32);
        assertThat(RecyclingAllocator.sizeClass(RecyclingAllocator.LINEAR_FROM))
                .isEqualTo(RecyclingAllocator.LINEAR_FROM);
        assertThat(RecyclingAllocator.sizeClass(3 * RecyclingAllocator.LINEAR_FROM - 1))
                .isEqualTo(3 * RecyclingAllocator.LINEAR_FROM);
    }

    @Test
    void aReleasedArrayServesTheNextRequestOfItsClassOnce() {
        RecyclingAllocator allocator = new RecyclingAllocator(1 << 20, 1 << 20);
        ByteBuffer first = allocator.allocate(100);
        allocator.release(first);
        allocator.release(first); // a second release of the same buffer is ignored
        assertThat(allocator.freeBytes()).isEqualTo(128);
        ByteBuffer again = allocator.allocate(120);
        assertThat(again.array()).isSameAs(first.array());
        assertThat(again.capacity()).isEqualTo(120);
        ByteBuffer other = allocator.allocate(120);
        assertThat(other.array()).isNotSameAs(first.array());
        assertThat(allocator.freeBytes()).isZero();
        byte[] otherClass = allocator.allocate(300).array();
        assertThat(otherClass).as("another class").hasSize(512);
    }

    @Test
    void freeArraysStayWithinTheBound() {
        RecyclingAllocator allocator = new RecyclingAllocator(256, 256);
        ByteBuffer a = allocator.allocate(128);
        ByteBuffer b = allocator.allocate(128);
        ByteBuffer c = allocator.allocate(128);
        allocator.release(a);
        allocator.release(b);
        allocator.release(c); // over the bound: left to the garbage collector
        assertThat(allocator.freeBytes()).isEqualTo(256);
        byte[] first = allocator.allocate(128).array();
        byte[] second = allocator.allocate(128).array();
        byte[] third = allocator.allocate(128).array();
        assertThat(first == a.array() || first == b.array()).as("first reuse").isTrue();
        assertThat(second == a.array() || second == b.array()).as("second reuse").isTrue();
        assertThat(second).isNotSameAs(first);
        assertThat(third != a.array() && third != b.array() && third != c.array()).as("a new array").isTrue();
    }

    @Test
    void arraysAboveTheKeptSizeAreLeftToTheCollector() {
        RecyclingAllocator allocator = new RecyclingAllocator(1 << 20, 256);
        ByteBuffer large = allocator.allocate(300); // an array of 512 bytes: above the kept size
        ByteBuffer small = allocator.allocate(200); // 256 bytes: kept
        allocator.release(large);
        assertThat(allocator.freeBytes()).as("the large array is not kept").isZero();
        allocator.release(small);
        assertThat(allocator.freeBytes()).isEqualTo(256);
        assertThat(allocator.allocate(300).array()).as("a new large array").isNotSameAs(large.array());
        assertThat(allocator.allocate(200).array()).as("the small one reused").isSameAs(small.array());
    }

    @Test
    void buffersNotBackedByAnArrayAreNotKept() {
        RecyclingAllocator allocator = new RecyclingAllocator(1 << 20, 1 << 20);
        allocator.release(ByteBuffer.allocateDirect(128));
        assertThat(allocator.freeBytes()).isZero();
    }
}
