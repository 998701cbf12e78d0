package dev.spilljoin.spill;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ChronicleOs}: a fresh JVM (this class's {@link #main}) run from a working directory with no {@code target/}
 * or {@code build/} above it, as a Spark executor's is, and a temporary directory of the test's own. Loading
 * Chronicle Core's {@code OS} class directly leaves {@code target/} in that temporary directory (the control, without
 * which the other cases could not fail); loading it through {@link ChronicleOs}, {@link NativeMemory}, or a spill
 * file written and read back (in a spill space in a directory of the test's) leaves nothing; a {@code target/} that
 * was there before is kept.
 */
class ChronicleOsTest {
    @TempDir
    Path dir;
    private Path work;
    private Path temporary;

    @BeforeEach
    void directories() throws IOException {
        work = Files.createDirectory(dir.resolve("work"));
        temporary = Files.createDirectory(dir.resolve("tmp"));
        for (Path above = work; above != null; above = above.getParent()) {
            boolean found = Files.exists(above.resolve("target")) || Files.exists(above.resolve("build"));
            Assumptions.assumeFalse(found, "a target/ or build/ directory in " + above
                    + ": Chronicle Core would take it and make nothing, so these cases could not tell anything");
        }
    }

    @Test
    void loadingChronicleDirectlyLeavesItsTargetDirectory() throws Exception {
        assertThat(runChild("direct")).as("the child's output").isEmpty();
        assertThat(temporary.resolve("target")).isEmptyDirectory();
    }

    @ParameterizedTest
    @ValueSource(strings = {"guarded", "native-memory", "spill-file"})
    void loadingItThroughTheSpillModuleLeavesNothing(String how) throws Exception {
        assertThat(runChild(how)).as("the child's output").isEmpty();
        assertThat(entries(temporary)).isEmpty();
    }

    @Test
    void aTargetDirectoryThatWasThereBeforeIsKept() throws Exception {
        Files.createDirectory(temporary.resolve("target"));
        assertThat(runChild("guarded")).as("the child's output").isEmpty();
        assertThat(temporary.resolve("target")).isEmptyDirectory();
    }

    /** The child: loads Chronicle's {@code OS} class the way {@code args[0]} says. */
    public static void main(String[] args) throws ClassNotFoundException, IOException {
        ClassLoader loader = ChronicleOsTest.class.getClassLoader();
        switch (args[0]) {
            case "direct" -> Class.forName("net.openhft.chronicle.core.OS", true, loader);
            case "guarded" -> ChronicleOs.load();
            case "native-memory" -> allocateAPage();
            case "spill-file" -> writeAndReadASpillFile(Path.of(args[1]));
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    /** Off-heap memory allocated and freed, as an in-memory join does. */
    private static void allocateAPage() {
        try (MemoryReservation budget = MemoryReservation.root("test", 1 << 20)) {
            budget.tryGrow(4096);
            NativeMemory.allocate(budget, 4096).close();
        }
    }

    /** A spill space in {@code root} with one file of one record, written, read back and deleted with the space. */
    private static void writeAndReadASpillFile(Path root) throws IOException {
        try (MemoryReservation budget = MemoryReservation.root("test", 4 << 20);
             SpillSpace space = SpillSpace.create(root, 64 << 10)) {
            SpillFile file = space.newFile("build-p0");
            try (PartitionWriter writer = file.openWriter(budget, 4096)) {
                MemoryReservation staging = budget.newChild("record");
                staging.tryGrow(64);
                try (NativeMemory.NativePage page = NativeMemory.allocate(staging, 64)) {
                    NativeMemory.putInt(page.address(), 60);
                    writer.append(page.address(), 64);
                }
                staging.close();
                writer.finish();
            }
            try (PartitionReader reader = file.openReader(budget)) {
                if (!reader.nextBlock()) {
                    throw new IllegalStateException("the record written was not read back");
                }
            }
        }
    }

    /** Runs {@link #main} with {@code how} in a fresh JVM; returns what it printed. */
    private String runChild(String how) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Djava.io.tmpdir=" + temporary);
        command.add("-Dslf4j.internal.verbosity=ERROR"); // Chronicle logs through SLF4J; none is on the class path
        for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (flag.startsWith("--add-") || flag.startsWith("-Dchronicle") || flag.startsWith("-Ddisable")
                    || flag.startsWith("-Dbackground")) {
                command.add(flag);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ChronicleOsTest.class.getName(), how,
                dir.resolve("spill").toString()));
        Process process = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output;
    }

    private static List<Path> entries(Path directory) throws IOException {
        try (Stream<Path> list = Files.list(directory)) {
            return list.toList();
        }
    }
}
