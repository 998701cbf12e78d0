package dev.spilljoin.spill;

import jnr.constants.platform.Errno;
import jnr.constants.platform.OpenFlags;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Platform;
import jnr.ffi.Runtime;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.SaveError;

/**
 * The few C library calls Java has no equivalent for: {@code flock} (a lock owned by an open file description, so
 * a second description in the same process conflicts with it and closing one descriptor never drops another's
 * lock, unlike {@code FileChannel.lock}'s process-wide {@code fcntl} locks), {@code open} with
 * {@code O_NOFOLLOW}/{@code O_EXCL} returning a descriptor to lock, {@code fchmod} and {@code geteuid}. Bound
 * through jnr-ffi, which the POSIX API under Chronicle already loads. Every call returns the C result; a failure is
 * negative and {@link #lastError()} says why.
 */
final class NativeFiles {
    static final int O_RDONLY = OpenFlags.O_RDONLY.intValue();
    static final int O_RDWR = OpenFlags.O_RDWR.intValue();
    static final int O_CREAT = OpenFlags.O_CREAT.intValue();
    static final int O_EXCL = OpenFlags.O_EXCL.intValue();
    static final int O_NOFOLLOW = OpenFlags.O_NOFOLLOW.intValue();
    static final int O_NONBLOCK = OpenFlags.O_NONBLOCK.intValue();
    static final int O_CLOEXEC = OpenFlags.O_CLOEXEC.intValue();
    static final int LOCK_EX = 2;
    static final int LOCK_NB = 4;
    static final int EWOULDBLOCK = Errno.EWOULDBLOCK.intValue();

    /** The bound functions of the C library. */
    public interface LibC {
        @SaveError
        int open(String path, int flags, int mode);

        @SaveError
        int flock(int fd, int operation);

        @SaveError
        int fchmod(int fd, int mode);

        @SaveError
        long write(int fd, @In byte[] bytes, long count);

        @SaveError
        long read(int fd, byte[] bytes, long count);

        int close(int fd);

        int geteuid();

        String strerror(int error);
    }

    private static final class Holder {
        static final LibC LIBC = LibraryLoader.create(LibC.class)
                .load(Platform.getNativePlatform().getStandardCLibraryName());
    }

    private NativeFiles() {
    }

    static LibC libc() {
        return Holder.LIBC;
    }

    /** errno of the calling thread's last failed call. */
    static int lastError() {
        return Runtime.getRuntime(libc()).getLastError();
    }

    static String describe(int error) {
        return libc().strerror(error);
    }
}
