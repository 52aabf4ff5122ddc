package org.edgebridge.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import org.edgebridge.storage.Fsync;
import org.jspecify.annotations.Nullable;

/**
 * Registered devices, one per line: {@code clientId:username:pbkdf2-sha256$iterations$salt$hash} (salt and hash in
 * Base64). Lines starting with {@code #} are comments. Immutable once loaded; thread-safe.
 *
 * <p>A client id may itself contain {@code :} (MQTT allows it, and so does the broker): a line is split at its
 * last two colons, which works because neither a username nor a hash may hold one. So every client id the broker
 * accepts round-trips through the file.
 */
public final class PasswordFile {
    static final int ITERATIONS = 100_000;
    private static final String SCHEME = "pbkdf2-sha256";
    private static final int MAX_CACHED = 100_000;
    /** Checked when there is nothing to check against, so that an unknown user costs what a wrong password costs. */
    private static final String DECOY = hash("decoy-password-never-used");

    /** One registered device. */
    public record Entry(String clientId, String username, String hash) {}

    private final Map<String, Entry> byClientId;
    /** Credentials already verified (by SHA-256 of the password): a reconnecting device costs no PBKDF2 run. */
    private final Map<String, Boolean> verified = new ConcurrentHashMap<>();

    private PasswordFile(Map<String, Entry> byClientId) {
        this.byClientId = Map.copyOf(byClientId);
    }

    public static PasswordFile load(Path file) throws IOException {
        return new PasswordFile(read(file));
    }

    private static Map<String, Entry> read(Path file) throws IOException {
        Map<String, Entry> entries = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Entry e = parse(line);
            if (e == null) {
                throw new IOException(file + " line " + (i + 1) + ": must be clientId:username:" + SCHEME
                        + "$…; add devices with 'edge-bridge.jar device add'");
            }
            if (entries.put(e.clientId(), e) != null) {
                throw new IOException(file + " line " + (i + 1) + ": client id " + e.clientId()
                        + " is registered twice; remove one with 'edge-bridge.jar device remove'");
            }
        }
        return entries;
    }

    /** The entry of one line, or null if the line is not one. */
    static @Nullable Entry parse(String line) {
        String l = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
        int hashAt = l.lastIndexOf(':');
        int userAt = hashAt <= 0 ? -1 : l.lastIndexOf(':', hashAt - 1);
        if (userAt <= 0) {
            return null;
        }
        String clientId = l.substring(0, userAt);
        String username = l.substring(userAt + 1, hashAt);
        String hash = l.substring(hashAt + 1);
        if (!Topics.isUsableClientId(clientId)
                || !isUsableUsername(username)
                || !hash.startsWith(SCHEME + "$")
                || hash.split("\\$").length != 4) {
            return null;
        }
        return new Entry(clientId, username, hash);
    }

    static boolean isUsableUsername(String username) {
        return username != null
                && !username.isEmpty()
                && username.length() <= 256
                && username.indexOf(':') < 0
                && username.chars().noneMatch(Character::isISOControl);
    }

    public Optional<Entry> find(String clientId) {
        return Optional.ofNullable(byClientId.get(clientId));
    }

    public boolean isRegistered(String clientId) {
        return byClientId.containsKey(clientId);
    }

    public int size() {
        return byClientId.size();
    }

    /**
     * True if the device is registered, the username is the one bound to it, and the password matches. Costs one
     * PBKDF2 run (tens of milliseconds) whether or not the client id and username exist, unless these credentials
     * were verified before ({@link #isVerified}).
     */
    public boolean verify(String clientId, String username, byte[] password) {
        if (password == null) {
            return false;
        }
        if (isVerified(clientId, username, password)) {
            return true;
        }
        Entry entry = byClientId.get(clientId);
        boolean known = entry != null && username != null && entry.username().equals(username);
        boolean ok = matches(known ? Objects.requireNonNull(entry).hash() : DECOY, password) && known;
        if (ok) {
            if (verified.size() >= MAX_CACHED) {
                verified.clear();
            }
            verified.put(cacheKey(clientId, username, password), Boolean.TRUE);
        }
        return ok;
    }

    /** True if exactly these credentials were {@link #verify verified} before: costs one SHA-256, no PBKDF2. */
    public boolean isVerified(String clientId, String username, byte[] password) {
        return username != null && password != null && verified.containsKey(cacheKey(clientId, username, password));
    }

    private static boolean matches(String hash, byte[] password) {
        String[] parts = hash.split("\\$");
        int iterations;
        try {
            iterations = Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            return false;
        }
        byte[] salt = Base64.getDecoder().decode(parts[2]);
        byte[] expected = Base64.getDecoder().decode(parts[3]);
        return MessageDigest.isEqual(expected, derive(new String(password, StandardCharsets.UTF_8), salt, iterations));
    }

    private static String cacheKey(String clientId, String username, byte[] password) {
        return clientId + "\u0000" + username + "\u0000" + sha256(password);
    }

    /** A new line for the file, with a fresh random salt. */
    public static String line(String clientId, String username, String password) {
        return clientId + ":" + username + ":" + hash(password);
    }

    private static String hash(String password) {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        byte[] hash = derive(password, salt, ITERATIONS);
        return SCHEME + "$" + ITERATIONS + "$" + Base64.getEncoder().encodeToString(salt) + "$"
                + Base64.getEncoder().encodeToString(hash);
    }

    /** The registered devices of a file, in file order (none if it does not exist). */
    public static List<Entry> list(Path file) throws IOException {
        return Files.exists(file) ? List.copyOf(read(file).values()) : List.of();
    }

    /** Adds or replaces a device in the file, keeping the other lines (comments included). */
    public static void addDevice(Path file, String clientId, String username, String password) throws IOException {
        if (!Topics.isUsableClientId(clientId)) {
            throw new IllegalArgumentException(
                    "client id " + clientId + ": must be 1-128 characters without / + # or control characters");
        }
        if (!isUsableUsername(username)) {
            throw new IllegalArgumentException(
                    "username " + username + ": must be 1-256 characters without ':' or control characters");
        }
        if (password.isEmpty()) {
            throw new IllegalArgumentException("the password must not be empty");
        }
        List<String> kept = linesWithout(file, clientId);
        kept.add(line(clientId, username, password));
        write(file, kept);
    }

    /** Removes a device from the file. @return false if it was not registered */
    public static boolean removeDevice(Path file, String clientId) throws IOException {
        if (!Files.exists(file)) {
            return false;
        }
        List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<String> kept = linesWithout(file, clientId);
        if (kept.size() == all.size()) {
            return false;
        }
        write(file, kept);
        return true;
    }

    private static List<String> linesWithout(Path file, String clientId) throws IOException {
        List<String> kept = new ArrayList<>();
        if (Files.exists(file)) {
            for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                Entry e = l.startsWith("#") ? null : parse(l);
                if (e == null || !e.clientId().equals(clientId)) {
                    kept.add(l);
                }
            }
        }
        return kept;
    }

    /**
     * Writes the whole file next to the old one, syncs it and moves it in place, then syncs the directory, so that a
     * crash or a power cut leaves one or the other.
     */
    private static void write(Path file, List<String> lines) throws IOException {
        Path absolute = file.toAbsolutePath();
        if (absolute.getParent() != null) {
            Files.createDirectories(absolute.getParent());
        }
        Path next = absolute.resolveSibling(absolute.getFileName() + ".new");
        Files.write(next, lines, StandardCharsets.UTF_8);
        if (Files.exists(absolute)) {
            // the new file keeps the old one's owner and mode (it holds password hashes; the service user reads it)
            try {
                Files.setPosixFilePermissions(next, Files.getPosixFilePermissions(absolute));
                Files.setOwner(next, Files.getOwner(absolute));
            } catch (UnsupportedOperationException | IOException e) {
                // not a POSIX file system, or not allowed to give the file away: keep what the write made
            }
        } else {
            try {
                Files.setPosixFilePermissions(next, PosixFilePermissions.fromString("rw-r-----"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system
            }
        }
        Fsync.file(next); // else a power cut after the rename can leave the name with no content
        Files.move(next, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Fsync.written(absolute); // the rename itself
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    private static byte[] derive(String password, byte[] salt, int iterations) {
        try {
            PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
                    .generateSecret(spec)
                    .getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 is in every Java runtime", e);
        }
    }
}
