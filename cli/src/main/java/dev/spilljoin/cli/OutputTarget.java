package dev.spilljoin.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Where {@code --output} or {@code --stats} writes, decided before anything is read. The given path's symbolic
 * links are followed one at a time to the entry they name, which is then
 * <ul>
 *   <li>missing: a new regular file there (its directory must exist, else exit 4), or</li>
 *   <li>a regular file: replaced whole, in its own directory, the link (if any) left as it is;</li>
 *   <li>both written through an {@link AtomicOutputFile};</li>
 *   <li>a device, FIFO or socket: written in place ({@link InPlaceOutputFile}), never replaced;</li>
 *   <li>a directory: refused (exit 2).</li>
 * </ul>
 * A link that lives in {@code /proc} ({@code /dev/stdout}, {@code /dev/fd/N}, {@code /proc/self/fd/N}) stands for
 * an open descriptor of the process, not a name one could create a file at, and is written in place too.
 */
final class OutputTarget {
    /** Links followed before giving up, as the kernel's own limit. */
    private static final int MAX_LINKS = 40;
    private static final Path PROC = Path.of("/proc");

    private final String flag;
    private final Path given;
    private final Path destination;
    private final boolean inPlace;
    private final String description;

    private OutputTarget(String flag, Path given, Path destination, boolean inPlace, String description) {
        this.flag = flag;
        this.given = given;
        this.destination = destination;
        this.inPlace = inPlace;
        this.description = description;
    }

    /**
     * Resolves {@code given} as the target of {@code flag}; {@code what} names it in messages ("the output file").
     */
    static OutputTarget resolve(String flag, Path given, String what) {
        String description = what + " " + given;
        Path path = given.toAbsolutePath();
        try {
            for (int links = 0; ; links++) {
                BasicFileAttributes entry = attributes(path);
                if (entry == null) {
                    Path directory = path.getParent();
                    if (directory == null || !Files.isDirectory(directory)) {
                        throw new ResourceException(flag + " " + given + ": the directory " + directory
                                + " does not exist; create it or write elsewhere");
                    }
                    return new OutputTarget(flag, given, path, false, description);
                }
                if (entry.isDirectory()) {
                    throw new UsageException(flag + " " + given + " is a directory; give a file name");
                }
                if (entry.isRegularFile()) {
                    return new OutputTarget(flag, given, path, false, description);
                }
                if (!entry.isSymbolicLink() || path.getParent().toRealPath().startsWith(PROC)) {
                    return new OutputTarget(flag, given, path, true, description);
                }
                if (links == MAX_LINKS) {
                    throw new UsageException(flag + " " + given + ": more than " + MAX_LINKS + " symbolic links"
                            + " (a loop?); give the file itself");
                }
                path = path.getParent().resolve(Files.readSymbolicLink(path));
            }
        } catch (IOException e) {
            throw ResourceException.writeFailed(description, e);
        }
    }

    private static BasicFileAttributes attributes(Path path) throws IOException {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** The flag that named it: {@code --output} or {@code --stats}. */
    String flag() {
        return flag;
    }

    /** The path as given on the command line. */
    Path given() {
        return given;
    }

    /** Where the bytes land: the entry the links lead to (for a new file, where it will be). */
    Path destination() {
        return destination;
    }

    /** True for a device, FIFO or descriptor written in place; false for a regular file written whole. */
    boolean inPlace() {
        return inPlace;
    }

    /** Whether this target would replace {@code file} (an input, or another target's destination). */
    boolean wouldReplace(Path file) {
        return !inPlace && sameEntry(destination, file);
    }

    /** Whether this target is written in place into {@code file} itself (a FIFO or device that is an input too). */
    boolean writesInto(Path file) {
        return inPlace && sameEntry(destination, file);
    }

    /** Opens the target: a temporary to rename over the file, or the device itself. */
    OutputFile open() {
        return inPlace ? InPlaceOutputFile.open(destination, description)
                : AtomicOutputFile.create(destination, description);
    }

    /**
     * Whether {@code a} and {@code b} reach one entry: for two existing ones the same device and inode (so hard
     * links and links count), otherwise the same name in the same real directory ({@code ./x}, {@code d/../x}).
     */
    private static boolean sameEntry(Path a, Path b) {
        try {
            if (Files.exists(a) && Files.exists(b)) {
                return Files.isSameFile(a, b);
            }
            return realDirectory(a).resolve(a.getFileName()).equals(realDirectory(b).resolve(b.getFileName()));
        } catch (IOException e) {
            return false; // a directory that does not exist: no file there to replace
        }
    }

    private static Path realDirectory(Path path) throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        return parent == null ? path.toAbsolutePath() : parent.toRealPath();
    }
}
