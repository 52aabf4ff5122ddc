package org.edgebridge.forward.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.edgebridge.tls.OwnerOnlyFiles;

/**
 * A file that holds one secret on one line (a token, a client secret): one trailing newline (LF or CRLF) is
 * stripped. Each problem is an {@link IllegalArgumentException} saying what is wrong and how to fix it (the caller
 * puts the key and the path in front).
 */
public final class SecretFile {
    /** Far above any token or client secret; a longer file is not one (a wrong path, say). */
    static final int MAX_BYTES = 16 * 1024;

    private SecretFile() {}

    /** The secret in {@code path}, whoever else may read the file. */
    public static String read(Path path) {
        if (!Files.isRegularFile(path)) {
            throw new IllegalArgumentException("no such file");
        }
        byte[] bytes;
        try {
            if (Files.size(path) > MAX_BYTES) {
                throw new IllegalArgumentException("longer than " + MAX_BYTES + " bytes: not a file of one secret");
            }
            bytes = Files.readAllBytes(path);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot be read by this user (" + e.getClass().getSimpleName()
                            + "); let the bridge's user read it, e.g. chown root:edge-bridge and chmod 640, or "
                            + "systemd LoadCredential=");
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (text.endsWith("\r\n")) {
            text = text.substring(0, text.length() - 2);
        } else if (text.endsWith("\n")) {
            text = text.substring(0, text.length() - 1);
        }
        if (text.isBlank()) {
            throw new IllegalArgumentException("is empty; write the secret into it (one line)");
        }
        if (text.contains("\n") || text.contains("\r")) {
            throw new IllegalArgumentException("holds more than one line; the file holds the secret alone");
        }
        return text.strip();
    }

    /** The secret in {@code path}, which only its owner may read (else refused). */
    public static String readOwnerOnly(Path path) {
        String secret = read(path);
        OwnerOnlyFiles.require(path);
        return secret;
    }
}
