package dev.spilljoin.spill;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Words for what went wrong with a path of the spill directory, so a message names the real cause: "permission
 * denied on X (a directory owned by uid 0, mode rwxr-xr-x)", "X (a file owned by uid 0) already exists", or the
 * system's own reason ("Read-only file system", "No space left on device").
 */
final class SpillPaths {
    private SpillPaths() {
    }

    /** The cause of {@code failure}, naming the path concerned and what it is. */
    static String cause(IOException failure) {
        if (failure instanceof AccessDeniedException denied) {
            Path file = path(denied.getFile());
            Path parent = file == null ? null : file.toAbsolutePath().getParent();
            return "permission denied on " + denied.getFile()
                    + (parent == null ? "" : " (its directory is " + describe(parent) + ")");
        }
        if (failure instanceof FileAlreadyExistsException exists) {
            Path file = path(exists.getFile());
            return (file == null ? "a file" : describe(file)) + " already exists";
        }
        if (failure instanceof NoSuchFileException missing) {
            return missing.getFile() + " does not exist";
        }
        if (failure instanceof FileSystemException other && other.getReason() != null) {
            return other.getFile() + ": " + other.getReason();
        }
        return String.valueOf(failure.getMessage());
    }

    /** What {@code path} is, without following a link: e.g. "a directory /tmp/x owned by uid 0 (rwxr-xr-x)". */
    static String describe(Path path) {
        try {
            PosixFileAttributes attributes = Files.readAttributes(path, PosixFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            String kind = attributes.isSymbolicLink() ? "a symbolic link" : attributes.isDirectory() ? "a directory"
                    : attributes.isRegularFile() ? "a file" : "a special file";
            Object uid = Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            return kind + " " + path + " owned by uid " + uid + " ("
                    + PosixFilePermissions.toString(attributes.permissions()) + ")";
        } catch (IOException | UnsupportedOperationException e) {
            return String.valueOf(path);
        }
    }

    private static Path path(String name) {
        return name == null ? null : Paths.get(name);
    }
}
