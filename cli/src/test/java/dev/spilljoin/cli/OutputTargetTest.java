package dev.spilljoin.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OutputTarget}: what each kind of target becomes (a new or existing regular file replaced whole through a
 * short-named temporary, keeping its mode and owner; a device, FIFO or process descriptor written in place; a link
 * followed to the file it names), on private devices, FIFOs and links in the test's own directory.
 */
class OutputTargetTest {
    @TempDir
    Path dir;

    private static void writeAndCommit(OutputTarget target, String text) throws IOException {
        try (OutputFile file = target.open()) {
            file.stream().write(text.getBytes(StandardCharsets.UTF_8));
            file.commit();
        }
    }

    private static OutputTarget target(Path path) {
        return OutputTarget.resolve("--output", path, "the output file");
    }

    private String[] entries() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new);
        }
    }

    @Test
    void aNewFileGetsTheModeTheUmaskGivesAndAnExistingOneKeepsItsMode() throws IOException {
        Path reference = Files.createFile(dir.resolve("reference"));
        Path fresh = dir.resolve("new.csv");
        writeAndCommit(target(fresh), "a\n");
        assertThat(Files.readString(fresh)).isEqualTo("a\n");
        assertThat(Files.getPosixFilePermissions(fresh)).as("like any new file: 0666 less the umask")
                .isEqualTo(Files.getPosixFilePermissions(reference));

        Path existing = Files.writeString(dir.resolve("old.csv"), "old\n");
        Files.setPosixFilePermissions(existing, PosixFilePermissions.fromString("rw-r-----"));
        writeAndCommit(target(existing), "new\n");
        assertThat(Files.readString(existing)).isEqualTo("new\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(existing))).isEqualTo("rw-r-----");
        assertThat(entries()).containsExactly("new.csv", "old.csv", "reference");
    }

    @Test
    void anExistingFileKeepsItsOwnerAndGroupWhereTheRunMayGiveThem() throws IOException {
        Path existing = Files.writeString(dir.resolve("old.csv"), "old\n");
        UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
        PosixFileAttributeView view = Files.getFileAttributeView(existing, PosixFileAttributeView.class);
        try {
            view.setOwner(users.lookupPrincipalByName("65534"));
            view.setGroup(users.lookupPrincipalByGroupName("65534"));
        } catch (IOException notRoot) {
            assumeTrue(false, "only root can give a file to another user; not tested as " + notRoot.getMessage());
        }
        writeAndCommit(target(existing), "new\n");
        assertThat(Files.readString(existing)).isEqualTo("new\n");
        assertThat(Files.getAttribute(existing, "unix:uid")).isEqualTo(65534);
        assertThat(Files.getAttribute(existing, "unix:gid")).isEqualTo(65534);
    }

    @Test
    void aDeviceIsWrittenInPlaceAndNeverReplacedNorDeleted() throws IOException {
        Path device = SpecialFiles.nullDevice(dir.resolve("nulldev"));
        Object rdev = Files.getAttribute(device, "unix:rdev");
        OutputTarget target = target(device);
        assertThat(target.inPlace()).isTrue();
        writeAndCommit(target, "rows\n");
        try (OutputFile failed = target.open()) {
            failed.stream().write('x');
            failed.discard(); // as on Ctrl-C, then closed without a commit, as on a failure
        }
        assertThat(SpecialFiles.type(device)).isEqualTo(SpecialFiles.CHARACTER_DEVICE);
        assertThat(Files.getAttribute(device, "unix:rdev")).isEqualTo(rdev);
        assertThat(entries()).containsExactly("nulldev");
        assertThat(OutputTarget.resolve("--stats", device, "the stats file").inPlace()).isTrue();
    }

    @Test
    void aFifoIsWrittenInPlaceToItsReader() throws Exception {
        Path fifo = SpecialFiles.fifo(dir.resolve("pipe"));
        CompletableFuture<String> reader = SpecialFiles.readAsync(fifo);
        writeAndCommit(target(fifo), "through the pipe\n");
        assertThat(reader.get(60, TimeUnit.SECONDS)).isEqualTo("through the pipe\n");
        assertThat(SpecialFiles.type(fifo)).isEqualTo(SpecialFiles.FIFO);
        assertThat(entries()).containsExactly("pipe");
    }

    @Test
    void aLinkIsFollowedToItsFileWhichIsReplacedWhileTheLinkStays() throws IOException {
        Path real = Files.writeString(Files.createDirectory(dir.resolve("d")).resolve("real.csv"), "old\n");
        Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rw-rw----"));
        Path link = Files.createSymbolicLink(dir.resolve("link.csv"), Path.of("d/real.csv"));
        Path chain = Files.createSymbolicLink(dir.resolve("chain.csv"), link.getFileName());
        OutputTarget target = target(chain);
        assertThat(target.inPlace()).isFalse();
        assertThat(target.destination()).isEqualTo(dir.resolve("d/real.csv"));
        writeAndCommit(target, "new\n");
        assertThat(Files.readSymbolicLink(chain)).isEqualTo(Path.of("link.csv"));
        assertThat(Files.readSymbolicLink(link)).isEqualTo(Path.of("d/real.csv"));
        assertThat(Files.readString(real)).isEqualTo("new\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(real))).isEqualTo("rw-rw----");
        try (Stream<Path> files = Files.list(dir.resolve("d"))) {
            assertThat(files).containsExactly(real);
        }

        Path dangling = Files.createSymbolicLink(dir.resolve("dangling.csv"), Path.of("d/created.csv"));
        writeAndCommit(target(dangling), "made\n");
        assertThat(SpecialFiles.type(dangling)).isEqualTo(SpecialFiles.LINK);
        assertThat(Files.readString(dir.resolve("d/created.csv"))).isEqualTo("made\n");

        Path loop = Files.createSymbolicLink(dir.resolve("loop"), Path.of("loop"));
        assertThatThrownBy(() -> target(loop)).isInstanceOf(UsageException.class)
                .hasMessageContaining("more than 40 symbolic links");
    }

    @Test
    void aLinkToAnOpenDescriptorOfTheProcessIsWrittenInPlace() throws IOException {
        Path held = Files.writeString(dir.resolve("held.txt"), "a");
        try (FileChannel open = FileChannel.open(held, StandardOpenOption.WRITE)) {
            Path descriptor = descriptorOf(held);
            Path link = Files.createSymbolicLink(dir.resolve("out"), descriptor);
            OutputTarget target = target(link);
            assertThat(target.inPlace()).as("%s through %s", link, descriptor).isTrue();
            writeAndCommit(target, "b");
            assertThat(open.isOpen()).isTrue();
        }
        assertThat(Files.readString(held)).as("appended, as to a descriptor opened with >>").isEqualTo("ab");
        assertThat(SpecialFiles.type(dir.resolve("out"))).isEqualTo(SpecialFiles.LINK);
        assertThat(entries()).containsExactly("held.txt", "out");
    }

    /** The {@code /proc/self/fd/N} link of a file this process holds open. */
    private static Path descriptorOf(Path file) throws IOException {
        Path descriptors = Path.of("/proc/self/fd");
        assumeTrue(Files.isDirectory(descriptors), "needs Linux's /proc");
        Path real = file.toRealPath();
        try (Stream<Path> links = Files.list(descriptors)) {
            return links.filter(link -> {
                try {
                    return Files.readSymbolicLink(link).equals(real);
                } catch (IOException closedMeanwhile) {
                    return false;
                }
            }).findFirst().map(link -> descriptors.resolve(link.getFileName())).orElseThrow();
        }
    }

    @Test
    void aLongNameKeepsTheTemporaryNameShort() throws IOException {
        Path target = dir.resolve("o".repeat(246) + ".csv");
        assertThat(target.getFileName().toString()).hasSize(250);
        try (OutputFile file = target(target).open()) {
            Path temporary = ((AtomicOutputFile) file).temporary();
            assertThat(temporary.getFileName().toString()).matches(AtomicOutputFile.TEMPORARY_NAME).hasSize(34);
            assertThat(AtomicOutputFile.isLive(temporary)).isTrue();
            file.stream().write('x');
            file.commit();
            assertThat(AtomicOutputFile.isLive(temporary)).isFalse();
        }
        assertThat(Files.readString(target)).isEqualTo("x");
        assertThat(entries()).hasSize(1);
    }

    @Test
    void aDirectoryIsUsageAndAMissingDirectoryIsResources() {
        assertThatThrownBy(() -> target(dir)).isInstanceOf(UsageException.class)
                .hasMessage("--output " + dir + " is a directory; give a file name");
        Path missing = dir.resolve("no/such/out.csv");
        assertThatThrownBy(() -> OutputTarget.resolve("--stats", missing, "the stats file"))
                .isInstanceOf(ResourceException.class)
                .hasMessage("--stats " + missing + ": the directory " + dir.resolve("no/such") + " does not exist;"
                        + " create it or write elsewhere");
        assertThat(dir.resolve("no")).doesNotExist();
    }

    @Test
    void discardDeletesTheUncommittedTemporaryAtOnceWhileTheWriterStillHoldsIt() throws IOException {
        Path out = dir.resolve("out.csv");
        try (OutputFile file = target(out).open()) {
            Path temporary = ((AtomicOutputFile) file).temporary();
            file.stream().write('x');
            assertThat(temporary).exists();
            file.discard();
            assertThat(temporary).doesNotExist();
            assertThatThrownBy(file::commit).isInstanceOf(IOException.class);
        }
        assertThat(entries()).isEmpty();
        assertThat(Files.exists(out, LinkOption.NOFOLLOW_LINKS)).isFalse();
    }
}
