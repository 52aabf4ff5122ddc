package org.edgebridge.forward.auth;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.edgebridge.tls.OwnerOnlyFiles;
import org.edgebridge.tls.PemFiles;

/**
 * One client certificate chain with its private key, read from PEM files and checked to belong together.
 *
 * @param stamp the files as they were when read (see {@link FileStamp})
 */
public record ClientCertificate(List<X509Certificate> chain, PrivateKey key, FileStamp stamp) {
    /**
     * Reads and checks the pair. @throws IllegalArgumentException naming the key ({@code ingest.certFile} or
     * {@code ingest.keyFile}), the path and what is wrong: unreadable, not PEM, not PKCS#8, a key file others may
     * read, or a key that does not belong to the certificate
     */
    public static ClientCertificate load(Path certFile, Path keyFile) {
        FileStamp stamp = FileStamp.of(certFile, keyFile);
        List<X509Certificate> chain = read("ingest.certFile", certFile, () -> PemFiles.certificates(certFile));
        PrivateKey key = read("ingest.keyFile", keyFile, () -> {
            OwnerOnlyFiles.require(keyFile);
            return PemFiles.privateKey(keyFile);
        });
        if (!belongTogether(chain.get(0), key)) {
            throw new IllegalArgumentException("ingest.keyFile=" + keyFile + ": is not the key of the certificate in "
                    + "ingest.certFile=" + certFile + " ("
                    + chain.get(0).getSubjectX500Principal().getName()
                    + "); put the matching pair in place (while a rotation has written one file of the two, the "
                    + "previous pair is kept)");
        }
        return new ClientCertificate(chain, key, stamp);
    }

    private static <T> T read(String keyName, Path file, Supplier<T> reader) {
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException(keyName + "=" + file + ": no readable file there");
        }
        try {
            return reader.get();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(keyName + "=" + file + ": " + e.getMessage(), e);
        }
    }

    /** Signs a random challenge with the key and verifies it with the certificate's public key. */
    private static boolean belongTogether(X509Certificate cert, PrivateKey key) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm(); // Ed25519, Ed448
        };
        try {
            byte[] challenge = new byte[32];
            new SecureRandom().nextBytes(challenge);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(challenge);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(cert.getPublicKey());
            verifier.update(challenge);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    public X509Certificate leaf() {
        return chain.get(0);
    }

    public Instant notAfter() {
        return leaf().getNotAfter().toInstant();
    }

    public String subject() {
        return leaf().getSubjectX500Principal().getName();
    }

    /** The serial number in hex, as {@code openssl x509 -serial} shows it. */
    public String serial() {
        return leaf().getSerialNumber().toString(16).toUpperCase(Locale.ROOT);
    }
}
