package org.edgebridge.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.edgebridge.forward.auth.SecretFile;
import org.edgebridge.tls.OwnerOnlyFiles;

/**
 * Tokens kept in files ({@code ingest.tokenFile}, {@code admin.tokenFile}) instead of the YAML or the environment.
 * A file is read once, at start; one trailing newline (LF or CRLF) is stripped. A file that others than its owner
 * may read is warned about, not refused: Docker and Kubernetes secrets are often mounted mode 0444.
 */
public final class TokenFiles {
    private TokenFiles() {}

    /**
     * The token given inline or in its file (never both), read once here; a problem, added to {@code problems},
     * names the key and the path.
     */
    static Optional<String> token(
            ConfigKey<?> inlineKey,
            Optional<String> inline,
            ConfigKey<?> fileKey,
            Optional<Path> file,
            List<String> problems) {
        if (file.isEmpty()) {
            return inline;
        }
        if (inline.isPresent()) {
            problems.add(inlineKey.name() + " and " + fileKey.name() + ": both are set; keep one (" + fileKey.name()
                    + " keeps the secret out of the YAML and the environment)");
            return Optional.empty();
        }
        try {
            return Optional.of(read(file.get()));
        } catch (IllegalArgumentException e) {
            problems.add(fileKey.name() + "=" + file.get() + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    /** Token files that others than their owner may read: warned about (check-config, and the log at start). */
    public static List<String> warnings(Map<String, String> effective) {
        List<String> out = new ArrayList<>();
        for (String fileKey : List.of(IngestKeys.INGEST_TOKEN_FILE.name(), ConfigKeys.ADMIN_TOKEN_FILE.name())) {
            Optional.ofNullable(effective.get(fileKey))
                    .map(Path::of)
                    .flatMap(p -> looseness(fileKey, p))
                    .ifPresent(out::add);
        }
        return out;
    }

    /** The token in {@code path}; an {@link IllegalArgumentException} says why there is none. */
    static String read(Path path) {
        return SecretFile.read(path);
    }

    /** A warning when others than the file's owner may read {@code path}; empty when they may not or it cannot tell. */
    static Optional<String> looseness(String key, Path path) {
        return OwnerOnlyFiles.otherReaders(path)
                .map(who -> key + "=" + path + ": readable by " + who + "; " + OwnerOnlyFiles.FIX);
    }

    /**
     * Where the token of {@code tokenKey} comes from, for the status page: {@code file <path>}, {@code inline} or
     * {@code none}. Never the token.
     */
    public static String source(Map<String, String> effective, String tokenKey) {
        String file = effective.get(tokenKey + "File");
        if (file != null) {
            return "file " + file;
        }
        return effective.containsKey(tokenKey) ? "inline" : "none";
    }
}
