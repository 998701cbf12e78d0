package dev.spilljoin.spill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpillSpaceTest {
    private static final int WINDOW = 16 * 1024;

    @TempDir
    Path root;

    @Test
    void createsAPrivateMarkedDirectoryWithPrivateFilesAndDeletesItOnClose() throws IOException {
        SpillSpace space = SpillSpace.create(root, WINDOW);
        Path directory = space.directory();
        long pid = ProcessHandle.current().pid();
        assertThat(directory.getParent()).isEqualTo(root);
        assertThat(directory.getFileName().toString()).startsWith("spilljoin-" + pid + "-");
        assertThat(permissions(directory)).isEqualTo("rwx------");
        Path lock = directory.resolve(SpillDirectoryLock.FILE_NAME);
        assertThat(Files.readString(lock)).isEqualTo(SpillDirectoryLock.MAGIC + "pid " + pid + "\n");
        assertThat(permissions(lock)).isEqualTo("rw-------");
        MemoryReservation budget = MemoryReservation.root("test", 1 << 20);
        SpillFile file = space.newFile("build-p0");
        try (PartitionWriter writer = file.openWriter(budget, 4096)) {
            appendRecord(budget, writer, 100);
            writer.finish();
        }
        assertThat(permissions(file.path())).isEqualTo("rw-------");
        space.close();
        space.close();
        budget.close();
        assertThat(directory).doesNotExist();
        assertThat(entries(root)).isZero();
    }

    @Test
    void sweepsOnlyOurOwnMarkedDirectoriesWhoseLockIsFree() throws Exception {
        long deadPid = deadPid();
        Path leftover = markedDirectory("spilljoin-" + deadPid + "-dead", SpillDirectoryLock.MAGIC + "pid 1\n");
        Files.writeString(leftover.resolve("00000-build-p0.spill"), "left over by a killed run");
        // what the sweep must never delete, though every name starts with spilljoin-<a dead pid>
        Path backup = Files.createDirectory(root.resolve("spilljoin-" + deadPid + "-backup"));
        Files.writeString(backup.resolve("data.csv"), "a user's own files");
        Path unmarked = markedDirectory("spilljoin-" + deadPid + "-nomagic", "");
        Path otherUsers = markedDirectory("spilljoin-" + deadPid + "-nobody", SpillDirectoryLock.MAGIC);
        chownToNobody(otherUsers);
        Path outside = Files.createDirectory(root.resolve("outside"));
        Path linkTarget = Files.createDirectory(outside.resolve("spilljoin-target"));
        Files.writeString(linkTarget.resolve(SpillDirectoryLock.FILE_NAME), SpillDirectoryLock.MAGIC);
        Path link = Files.createSymbolicLink(root.resolve("spilljoin-" + deadPid + "-link"), linkTarget);
        Path plainFile = Files.writeString(root.resolve("spilljoin-" + deadPid + "-file"), "a file");
        Path unrelated = Files.createDirectory(root.resolve("other-dir"));

        try (SpillSpace live = SpillSpace.create(root, WINDOW)) {
            LeftoverSweep.Result result = LeftoverSweep.sweep(root);
            assertThat(leftover).doesNotExist();
            assertThat(backup.resolve("data.csv")).hasContent("a user's own files");
            assertThat(unmarked).isDirectory();
            assertThat(otherUsers).isDirectory();
            assertThat(link).isSymbolicLink();
            assertThat(linkTarget.resolve(SpillDirectoryLock.FILE_NAME)).exists();
            assertThat(plainFile).hasContent("a file");
            assertThat(unrelated).isDirectory();
            assertThat(live.directory().resolve(SpillDirectoryLock.FILE_NAME)).exists();
            // SpillSpace.create swept the leftover before this sweep ran; this one keeps the six others
            assertThat(result).isEqualTo(new LeftoverSweep.Result(0, 6));
        }
    }

    @Test
    void sweepCountsTheLeftoversItRemoves() throws IOException {
        markedDirectory("spilljoin-1-a", SpillDirectoryLock.MAGIC);
        markedDirectory("spilljoin-2-b", SpillDirectoryLock.MAGIC + "pid 2\n");
        Files.createDirectory(root.resolve("spilljoin-2024-backup"));
        assertThat(LeftoverSweep.sweep(root)).isEqualTo(new LeftoverSweep.Result(2, 1));
        assertThat(root.resolve("spilljoin-2024-backup")).isDirectory();
        assertThat(LeftoverSweep.sweep(root.resolve("missing"))).isEqualTo(LeftoverSweep.Result.NONE);
    }

    /**
     * A live run's directory whose pid means nothing here (another PID namespace: the pid in its name is dead in
     * ours), its lock held by another process: kept, whatever the pid says.
     */
    @Test
    void keepsADirectoryWhoseLockAnotherProcessHolds() throws Exception {
        Path live = markedDirectory("spilljoin-" + deadPid() + "-container", SpillDirectoryLock.MAGIC);
        Process holder = new ProcessBuilder("flock", "--exclusive",
                live.resolve(SpillDirectoryLock.FILE_NAME).toString(), "sh", "-c", "echo locked; cat")
                .redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                    StandardCharsets.US_ASCII));
            assertThat(out.readLine()).isEqualTo("locked");
            assertThat(LeftoverSweep.sweep(root)).isEqualTo(new LeftoverSweep.Result(0, 1));
            assertThat(live.resolve(SpillDirectoryLock.FILE_NAME)).exists();
        } finally {
            holder.getOutputStream().close();
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(LeftoverSweep.sweep(root)).as("its lock is free once the holder exited")
                .isEqualTo(new LeftoverSweep.Result(1, 0));
        assertThat(live).doesNotExist();
    }

    @Test
    void drawsAnotherNameWhenOneIsTakenAndNeverEntersTheTakenOne() throws IOException {
        Path outside = Files.createDirectory(root.resolve("outside"));
        Path planted = Files.createSymbolicLink(root.resolve(nameFor(1)), outside);
        Files.writeString(root.resolve(nameFor(2)), "not ours");
        Iterator<Long> names = List.of(1L << 16, 2L << 16, 3L << 16).iterator();
        try (SpillSpace space = SpillSpace.create(root, WINDOW, names::next)) {
            assertThat(space.directory()).isEqualTo(root.resolve(nameFor(3)));
            assertThat(permissions(space.directory())).isEqualTo("rwx------");
        }
        assertThat(planted).isSymbolicLink();
        assertThat(entries(outside)).isZero();
        assertThat(root.resolve(nameFor(2))).hasContent("not ours");
    }

    @Test
    void namesTheFileThatTakesEveryNameItDraws() throws IOException {
        Path taken = Files.writeString(root.resolve(nameFor(7)), "not ours");
        assertThatThrownBy(() -> SpillSpace.create(root, WINDOW, () -> 7L << 16))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("a file " + taken + " owned by uid")
                .hasMessageContaining("already exists and is not ours")
                .hasMessageContaining("--spill-dir")
                .hasMessageNotContaining("writable disk");
        assertThat(taken).hasContent("not ours");
    }

    @Test
    void namesARootThatIsAFile() throws IOException {
        Path file = Files.writeString(root.resolve("not-a-directory"), "x");
        assertThatThrownBy(() -> SpillSpace.create(file, WINDOW))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("a file " + file)
                .hasMessageContaining("already exists");
    }

    @Test
    void neverWritesThroughALinkPlantedWhereASpillFileGoes() throws IOException {
        Path victim = Files.writeString(root.resolve("victim.txt"), "precious");
        MemoryReservation budget = MemoryReservation.root("test", 1 << 20);
        try (SpillSpace space = SpillSpace.create(root, WINDOW)) {
            SpillFile file = space.newFile("build-p0");
            Files.createSymbolicLink(file.path(), victim);
            try (PartitionWriter writer = file.openWriter(budget, 4096)) {
                assertThatThrownBy(() -> {
                    appendRecord(budget, writer, 100);
                    writer.finish();
                }).isInstanceOf(FileAlreadyExistsException.class);
            }
        } finally {
            budget.close();
        }
        assertThat(victim).hasContent("precious");
        assertThat(Files.size(victim)).isEqualTo(8);
    }

    @Test
    void deleteBeforeExitRemovesTheDirectoryWhileFilesAreOpenAndStopsTheWriter() throws IOException {
        MemoryReservation budget = MemoryReservation.root("test", 1 << 20);
        SpillSpace space = SpillSpace.create(root, WINDOW);
        SpillFile sealed = space.newFile("build-p0");
        try (PartitionWriter writer = sealed.openWriter(budget, 4096)) {
            appendRecord(budget, writer, 10_000);
            writer.finish();
        }
        SpillFile open = space.newFile("build-p1");
        PartitionWriter writer = open.openWriter(budget, 4096);
        appendRecord(budget, writer, 10_000);
        assertThat(entries(space.directory())).as("the lock file, the sealed file and the one being written")
                .isEqualTo(3);

        space.deleteBeforeExit();

        assertThat(space.directory()).doesNotExist();
        assertThat(entries(root)).isZero();
        assertThatThrownBy(() -> appendRecord(budget, writer, 10_000)).isInstanceOf(CancellationException.class);
        space.close();
        budget.close();
    }

    @Test
    void reportsMissingDiskSpaceNamingDirectoryNeededAndFree() throws IOException {
        try (SpillSpace space = SpillSpace.create(root, WINDOW)) {
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
        try (SpillSpace space = SpillSpace.create(root, WINDOW)) {
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

    /** A directory as a spill space leaves it (0700, a lock file holding {@code lockContent}), its lock free. */
    private Path markedDirectory(String name, String lockContent) throws IOException {
        Path directory = Files.createDirectory(root.resolve(name),
                PosixFilePermissions.asFileAttribute(SpillSpace.PRIVATE_DIRECTORY));
        Files.writeString(directory.resolve(SpillDirectoryLock.FILE_NAME), lockContent);
        return directory;
    }

    private static String nameFor(long random) {
        return "spilljoin-" + ProcessHandle.current().pid() + "-" + Long.toHexString(random);
    }

    private static long deadPid() throws Exception {
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor();
        assertThat(ProcessHandle.of(finished.pid())).isEmpty();
        return finished.pid();
    }

    /** Gives {@code directory} and its files to {@code nobody} (the tests run as root). */
    private static void chownToNobody(Path directory) throws Exception {
        Process chown = new ProcessBuilder("chown", "-R", "nobody", directory.toString()).inheritIO().start();
        assertThat(chown.waitFor()).isZero();
        assertThat(Files.getAttribute(directory, "unix:uid", LinkOption.NOFOLLOW_LINKS)).isNotEqualTo(0);
    }

    private static String permissions(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    /** Appends one record of {@code bytes} zero bytes, staged off-heap in {@code budget}. */
    private static void appendRecord(MemoryReservation budget, PartitionWriter writer, int bytes)
            throws IOException {
        try (MemoryReservation staging = budget.newChild("record")) {
            assertThat(staging.tryGrow(bytes)).isTrue();
            try (NativeMemory.NativePage page = NativeMemory.allocate(staging, bytes)) {
                NativeMemory.putInt(page.address(), bytes - 4);
                writer.append(page.address(), bytes);
            }
        }
    }
}
