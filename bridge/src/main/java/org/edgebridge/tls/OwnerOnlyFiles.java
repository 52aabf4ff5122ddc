package org.edgebridge.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Optional;
import java.util.Set;

/** Who else than its owner may read a file that holds a secret (a private key, a client secret, a token). */
public final class OwnerOnlyFiles {
    /** What to do about a file that others may read. */
    public static final String FIX = "make it owner-only (chmod 600, or systemd LoadCredential=)";

    private OwnerOnlyFiles() {}

    /**
     * {@code every user} or {@code its group} when they may read {@code path}; empty when only its owner may, or
     * when the file system cannot tell (not POSIX).
     */
    public static Optional<String> otherReaders(Path path) {
        PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class);
        if (view == null) {
            return Optional.empty();
        }
        Set<PosixFilePermission> perms;
        try {
            perms = view.readAttributes().permissions();
        } catch (IOException e) {
            return Optional.empty();
        }
        if (perms.contains(PosixFilePermission.OTHERS_READ)) {
            return Optional.of("every user");
        }
        return perms.contains(PosixFilePermission.GROUP_READ) ? Optional.of("its group") : Optional.empty();
    }

    /** @throws IllegalArgumentException when others than its owner may read {@code path} */
    public static void require(Path path) {
        otherReaders(path).ifPresent(who -> {
            throw new IllegalArgumentException("readable by " + who + ", refused: it holds a secret; " + FIX);
        });
    }
}
