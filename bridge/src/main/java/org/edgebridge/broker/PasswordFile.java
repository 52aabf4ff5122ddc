package org.edgebridge.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Registered devices, one per line: {@code clientId:username:pbkdf2-sha256$iterations$salt$hash}
 * (salt and hash in Base64). Lines starting with {@code #} are comments. Immutable once loaded.
 */
public final class PasswordFile {
    static final int ITERATIONS = 100_000;
    private static final String SCHEME = "pbkdf2-sha256";

    /** One registered device. */
    public record Entry(String clientId, String username, String hash) {}

    private final Map<String, Entry> byClientId;
    /** Credentials already verified (by SHA-256 of the password): a reconnecting device costs no PBKDF2 run. */
    private final Map<String, Boolean> verified = new java.util.concurrent.ConcurrentHashMap<>();

    private PasswordFile(Map<String, Entry> byClientId) {
        this.byClientId = Map.copyOf(byClientId);
    }

    public static PasswordFile load(Path file) throws IOException {
        Map<String, Entry> entries = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split(":", 3);
            if (parts.length != 3 || !parts[2].startsWith(SCHEME + "$") || !Topics.isUsableClientId(parts[0])
                    || parts[1].isEmpty()) {
                throw new IOException(file + " line " + (i + 1)
                        + ": must be clientId:username:" + SCHEME + "$…; add devices with 'edge-bridge.jar device add'");
            }
            entries.put(parts[0], new Entry(parts[0], parts[1], parts[2]));
        }
        return new PasswordFile(entries);
    }

    public Optional<Entry> find(String clientId) {
        return Optional.ofNullable(byClientId.get(clientId));
    }

    public int size() {
        return byClientId.size();
    }

    /** True if the device is registered, the username is the one bound to it, and the password matches. */
    public boolean verify(String clientId, String username, byte[] password) {
        Entry entry = byClientId.get(clientId);
        if (entry == null || username == null || password == null || !entry.username().equals(username)) {
            return false;
        }
        String cacheKey = clientId + "\u0000" + username + "\u0000" + sha256(password);
        if (verified.containsKey(cacheKey)) {
            return true;
        }
        String[] parts = entry.hash().split("\\$");
        if (parts.length != 4) {
            return false;
        }
        int iterations = Integer.parseInt(parts[1]);
        byte[] salt = Base64.getDecoder().decode(parts[2]);
        byte[] expected = Base64.getDecoder().decode(parts[3]);
        boolean ok = MessageDigest.isEqual(expected, derive(new String(password, StandardCharsets.UTF_8), salt, iterations));
        if (ok) {
            if (verified.size() > 100_000) {
                verified.clear();
            }
            verified.put(cacheKey, Boolean.TRUE);
        }
        return ok;
    }

    /** A new line for the file, with a fresh random salt. */
    public static String line(String clientId, String username, String password) {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        byte[] hash = derive(password, salt, ITERATIONS);
        return clientId + ":" + username + ":" + SCHEME + "$" + ITERATIONS + "$"
                + Base64.getEncoder().encodeToString(salt) + "$" + Base64.getEncoder().encodeToString(hash);
    }

    /** Adds or replaces a device in the file, keeping the other lines. */
    public static void addDevice(Path file, String clientId, String username, String password) throws IOException {
        if (!Topics.isUsableClientId(clientId)) {
            throw new IllegalArgumentException("client id " + clientId + ": must be 1-128 chars without / + # or control characters");
        }
        if (username.isEmpty() || username.contains(":") || password.isEmpty()) {
            throw new IllegalArgumentException("username must be non-empty without ':', and the password non-empty");
        }
        List<String> kept = new ArrayList<>();
        if (Files.exists(file)) {
            for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (!l.startsWith(clientId + ":")) {
                    kept.add(l);
                }
            }
        } else if (file.toAbsolutePath().getParent() != null) {
            Files.createDirectories(file.toAbsolutePath().getParent());
        }
        kept.add(line(clientId, username, password));
        Files.write(file, kept, StandardCharsets.UTF_8);
    }

    private static String sha256(byte[] bytes) {
        try {
            return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    private static byte[] derive(String password, byte[] salt, int iterations) {
        try {
            PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 is in every Java runtime", e);
        }
    }
}
