package org.edgebridge.tls;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMException;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads PEM files: a certificate chain, and a private key in PKCS#8 ({@code -----BEGIN PRIVATE KEY-----}, RSA, EC or
 * Ed25519). Each problem is an {@link IllegalArgumentException} whose message says what is wrong and how to fix it
 * (the caller puts the key and the path in front).
 */
public final class PemFiles {
    /** How to turn another key format into the one read here. */
    private static final String TO_PKCS8 =
            "convert it with: openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem";

    private PemFiles() {}

    /** The certificates in {@code file}, leaf first as written; at least one. */
    public static List<X509Certificate> certificates(Path file) {
        List<X509Certificate> out = new ArrayList<>();
        try (PEMParser pem = parser(file)) {
            for (Object o = pem.readObject(); o != null; o = pem.readObject()) {
                if (o instanceof X509CertificateHolder holder) {
                    out.add(new JcaX509CertificateConverter().getCertificate(holder));
                }
            }
        } catch (IOException | CertificateException e) {
            throw new IllegalArgumentException("not a PEM certificate chain (" + e.getMessage() + ")");
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
        }
        return List.copyOf(out);
    }

    /** The one unencrypted PKCS#8 private key in {@code file}. */
    public static PrivateKey privateKey(Path file) {
        try (PEMParser pem = parser(file)) {
            Object o = pem.readObject();
            if (o instanceof PrivateKeyInfo info) {
                return new JcaPEMKeyConverter().getPrivateKey(info);
            }
            if (o instanceof PEMKeyPair) {
                throw new IllegalArgumentException(
                        "holds a PKCS#1/SEC1 key (BEGIN RSA/EC PRIVATE KEY), not PKCS#8; " + TO_PKCS8);
            }
            if (o instanceof PKCS8EncryptedPrivateKeyInfo) {
                throw new IllegalArgumentException("holds an encrypted key; the bridge reads an unencrypted PKCS#8 key "
                        + "kept owner-only (chmod 600); " + TO_PKCS8);
            }
            throw new IllegalArgumentException("holds no PEM private key (-----BEGIN PRIVATE KEY-----)");
        } catch (PEMException e) {
            throw new IllegalArgumentException("not a usable private key (" + e.getMessage() + ")");
        } catch (IOException e) {
            throw new IllegalArgumentException("not a PEM private key (" + e.getMessage() + ")");
        }
    }

    private static PEMParser parser(Path file) throws IOException {
        Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        return new PEMParser(reader);
    }
}
