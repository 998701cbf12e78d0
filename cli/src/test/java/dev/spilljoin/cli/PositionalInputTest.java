package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PositionalInputTest {
    /**
     * The column chunks of consecutive row groups are read through one buffer ({@link PageBuffers#input}): a stream
     * over the next chunk, given the buffer the last one left full of its bytes, reads its own bytes from its own
     * offset, byte by byte, in pieces and in whole, and never moves the channel's position.
     */
    @Test
    void aStreamGivenAnotherStreamsBufferReadsItsOwnBytes(@TempDir Path dir) throws IOException {
        byte[] content = new byte[3 * PageBuffers.INPUT_BYTES];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 31 + (i >>> 8));
        }
        Path file = Files.write(dir.resolve("chunks.bin"), content);
        PageBuffers buffers = new PageBuffers();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            PositionalInput first = new PositionalInput(channel, 10, buffers.input());
            assertThat(first.read()).isEqualTo(content[10] & 0xFF);
            byte[] some = new byte[100];
            first.readFully(some, 0, some.length);
            assertThat(some).isEqualTo(java.util.Arrays.copyOfRange(content, 11, 111));

            int offset = PageBuffers.INPUT_BYTES + 12_345;
            ByteBuffer shared = buffers.input();
            assertThat(shared.remaining()).as("the first stream's bytes still buffered").isPositive();
            PositionalInput next = new PositionalInput(channel, offset, shared);
            assertThat(next.read()).isEqualTo(content[offset] & 0xFF);
            byte[] rest = new byte[content.length - offset - 1];
            next.readFully(rest, 0, rest.length);
            assertThat(rest).isEqualTo(java.util.Arrays.copyOfRange(content, offset + 1, content.length));
            assertThat(next.read()).isEqualTo(-1);
            assertThat(channel.position()).isZero();
        }
        assertThat(buffers.input()).isSameAs(buffers.input());
    }
}
