package dev.spilljoin.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpillSpaceTest {
    @TempDir
    Path root;

    @Test
    void createsAPrivateDirectoryWithTheOwnersPidAndDeletesItOnClose() throws IOException {
        SpillSpace space = SpillSpace.create(root, 16 * 1024);
        Path directory = space.directory();
        long pid = ProcessHandle.current().pid();
        assertThat(directory.getParent()).isEqualTo(root);
        assertThat(directory.getFileName().toString()).startsWith("spilljoin-" + pid + "-");
        assertThat(Files.readString(directory.resolve("owner.pid"))).isEqualTo(Long.toString(pid));
        space.close();
        space.close();
        assertThat(directory).doesNotExist();
        assertThat(entries(root)).isZero();
    }

    @Test
    void sweepsADeadOwnersDirectoryAndLeavesALiveOne() throws Exception {
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor();
        long deadPid = finished.pid();
        assertThat(ProcessHandle.of(deadPid)).isEmpty();
        Path dead = Files.createDirectory(root.resolve("spilljoin-" + deadPid + "-dead"));
        Files.writeString(dead.resolve("owner.pid"), Long.toString(deadPid));
        Files.writeString(dead.resolve("00000-build-p0.spill"), "left over by a crashed run");
        Path deadWithoutLock = Files.createDirectory(root.resolve("spilljoin-" + deadPid + "-nolock"));
        long livePid = ProcessHandle.current().pid();
        Path live = Files.createDirectory(root.resolve("spilljoin-" + livePid + "-live"));
        Files.writeString(live.resolve("owner.pid"), Long.toString(livePid));
        Path unrelated = Files.createDirectory(root.resolve("other-dir"));

        try (SpillSpace space = SpillSpace.create(root, 16 * 1024)) {
            assertThat(dead).doesNotExist();
            assertThat(deadWithoutLock).doesNotExist();
            assertThat(live).exists();
            assertThat(unrelated).exists();
            assertThat(space.directory()).exists();
        }
        assertThat(live.resolve("owner.pid")).hasContent(Long.toString(livePid));
    }

    @Test
    void reportsMissingDiskSpaceNamingDirectoryNeededAndFree() throws IOException {
        try (SpillSpace space = SpillSpace.create(root, 16 * 1024)) {
            assertThatThrownBy(() -> space.checkFreeSpace(Long.MAX_VALUE / 2))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining(space.directory().toString())
                    .hasMessageContaining("needed")
                    .hasMessageContaining(Long.toString(Long.MAX_VALUE / 2))
                    .hasMessageContaining("free");
            space.checkFreeSpace(1);
        }
    }

    @Test
    void rejectsAWindowThatIsNotWholePages() {
        assertThatThrownBy(() -> SpillSpace.create(root, 5000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("multiple of 4096");
    }

    @Test
    void createsFilesLazilyAndCountsThem() throws IOException {
        try (SpillSpace space = SpillSpace.create(root, 16 * 1024)) {
            SpillFile a = space.newFile("build-p0");
            SpillFile b = space.newFile("probe-p0");
            assertThat(a.path()).isNotEqualTo(b.path());
            assertThat(a.path()).doesNotExist();
            assertThat(space.counters().filesCreated()).isEqualTo(2);
            assertThat(space.liveFiles()).isEqualTo(2);
        }
        assertThat(entries(root)).isZero();
    }

    /**
     * A file that is gone lets go of everything: the space must not keep a deleted file (with its writer's and
     * reader's handles) for the rest of the join, which made a long join's heap grow with every file it ever made.
     * Checked through a weak reference, with a few collections to give the collector its chance.
     */
    @Test
    void aDeletedFileIsNoLongerHeldByItsSpace() throws IOException, InterruptedException {
        try (SpillSpace space = SpillSpace.create(root, 16 * 1024)) {
            WeakReference<SpillFile> deleted = new WeakReference<>(droppedFile(space));
            for (int i = 0; i < 20 && deleted.get() != null; i++) {
                System.gc();
                Thread.sleep(10);
            }
            assertThat(deleted.get()).as("the deleted file, collected").isNull();
            assertThat(space.liveFiles()).isZero();
        }
    }

    private static SpillFile droppedFile(SpillSpace space) throws IOException {
        SpillFile file = space.newFile("dropped");
        file.delete();
        return file;
    }

    static long entries(Path directory) throws IOException {
        try (Stream<Path> list = Files.list(directory)) {
            return list.count();
        }
    }
}
