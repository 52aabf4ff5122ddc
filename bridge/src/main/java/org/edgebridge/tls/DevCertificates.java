package org.edgebridge.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.edgebridge.storage.Fsync;

/**
 * Development TLS material for {@code demo}: a CA and a server certificate for localhost, 127.0.0.1, ::1 and
 * this host's name, as PEM files. Made once; reused while present. Not for production: see {@code certs/}.
 */
public final class DevCertificates {
    public static final String CA_FILE = "ca.pem";
    public static final String CERT_FILE = "server.pem";
    public static final String KEY_FILE = "server-key.pem";
    public static final String CA_KEY_FILE = "ca-key.pem";
    private static final SecureRandom RANDOM = new SecureRandom();

    /** The files of one set of material. */
    public record Material(Path caFile, Path certFile, Path keyFile) {}

    private DevCertificates() {}

    /** Returns the material in {@code dir}, making it first if any file is missing. */
    public static Material ensure(Path dir) {
        Material m = new Material(dir.resolve(CA_FILE), dir.resolve(CERT_FILE), dir.resolve(KEY_FILE));
        if (Files.exists(m.caFile()) && Files.exists(m.certFile()) && Files.exists(m.keyFile())) {
            return m;
        }
        try {
            Files.createDirectories(dir);
            KeyPair caKeys = ecKeys();
            X500Name caName = new X500Name("CN=edge-bridge dev CA");
            Instant now = Instant.now();
            X509Certificate ca = sign(
                    new JcaX509v3CertificateBuilder(
                                    caName,
                                    serial(),
                                    Date.from(now.minus(Duration.ofDays(1))),
                                    Date.from(now.plus(Duration.ofDays(3650))),
                                    caName,
                                    caKeys.getPublic())
                            .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                            .addExtension(
                                    Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                            .addExtension(
                                    Extension.subjectKeyIdentifier,
                                    false,
                                    new JcaX509ExtensionUtils().createSubjectKeyIdentifier(caKeys.getPublic())),
                    caKeys);
            KeyPair serverKeys = ecKeys();
            X509Certificate server = sign(
                    new JcaX509v3CertificateBuilder(
                                    ca,
                                    serial(),
                                    Date.from(now.minus(Duration.ofDays(1))),
                                    Date.from(now.plus(Duration.ofDays(825))),
                                    new X500Name("CN=localhost"),
                                    serverKeys.getPublic())
                            .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                            .addExtension(
                                    Extension.keyUsage,
                                    true,
                                    new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement))
                            .addExtension(
                                    Extension.extendedKeyUsage,
                                    false,
                                    new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                            .addExtension(Extension.subjectAlternativeName, false, serverNames())
                            .addExtension(
                                    Extension.authorityKeyIdentifier,
                                    false,
                                    new JcaX509ExtensionUtils().createAuthorityKeyIdentifier(ca)),
                    caKeys);
            writePem(m.caFile(), ca);
            writeKey(dir.resolve(CA_KEY_FILE), caKeys);
            writePem(m.certFile(), server, ca);
            writeKey(m.keyFile(), serverKeys);
            // made once and reused while present: a power cut must not leave a CA without its key, or empty files
            for (Path f : List.of(m.caFile(), dir.resolve(CA_KEY_FILE), m.certFile(), m.keyFile())) {
                Fsync.file(f);
            }
            Fsync.newDirectory(dir);
            return m;
        } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("could not make dev TLS material in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The files of one device's client certificate. */
    public record DeviceMaterial(Path certFile, Path keyFile) {}

    /**
     * Issues a client certificate with CN = {@code clientId}, signed by the CA in {@code dir} (made by
     * {@link #ensure}), into {@code dir/devices/}.
     */
    public static DeviceMaterial issueDevice(Path dir, String clientId) {
        try {
            Path devices = Files.createDirectories(dir.resolve("devices"));
            Instant now = Instant.now();
            DeviceMaterial issued = issueClient(
                    dir,
                    clientId,
                    now.minus(Duration.ofDays(1)),
                    now.plus(Duration.ofDays(825)),
                    devices.resolve(clientId + ".pem"),
                    devices.resolve(clientId + "-key.pem"));
            Fsync.newDirectory(devices); // the first device's directory keeps its name through a power cut
            return issued;
        } catch (IOException e) {
            throw new IllegalStateException(
                    "could not issue a device certificate for " + clientId + " in " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Issues a client certificate (extended key usage clientAuth) with CN = {@code commonName}, valid from
     * {@code notBefore} to {@code notAfter}, signed by the CA in {@code dir} (made by {@link #ensure}); the key is
     * written owner-only. Replaces the two files when they exist (each by a rename, as a site's rotation may).
     */
    public static DeviceMaterial issueClient(
            Path dir, String commonName, Instant notBefore, Instant notAfter, Path certFile, Path keyFile) {
        try {
            X509Certificate ca = (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(Files.newInputStream(dir.resolve(CA_FILE)));
            PrivateKey caKey = readKey(dir.resolve(CA_KEY_FILE));
            KeyPair keys = ecKeys();
            X509Certificate cert = new JcaX509CertificateConverter()
                    .getCertificate(new JcaX509v3CertificateBuilder(
                                    ca,
                                    serial(),
                                    Date.from(notBefore),
                                    Date.from(notAfter),
                                    new X500Name("CN=" + commonName),
                                    keys.getPublic())
                            .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                            .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                            .addExtension(
                                    Extension.extendedKeyUsage,
                                    false,
                                    new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth))
                            .build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKey)));
            Path newCert = certFile.resolveSibling(certFile.getFileName() + ".new");
            Path newKey = keyFile.resolveSibling(keyFile.getFileName() + ".new");
            writePem(newCert, cert);
            writeKey(newKey, keys);
            Fsync.file(newCert); // a power cut after a rename must not leave the name with no content
            Fsync.file(newKey);
            Files.move(newCert, certFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Files.move(newKey, keyFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Fsync.written(certFile); // the renames
            Fsync.written(keyFile);
            return new DeviceMaterial(certFile, keyFile);
        } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException(
                    "could not issue a client certificate for " + commonName + " in " + dir + ": " + e.getMessage(), e);
        }
    }

    private static PrivateKey readKey(Path file) throws IOException, GeneralSecurityException {
        String pem = Files.readString(file);
        String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("EC")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
    }

    /** Writes a private key as PEM PKCS#8, readable by its owner only (created so before anything is written). */
    private static void writeKey(Path file, KeyPair keys) throws IOException {
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException notPosix) {
            Files.createFile(file);
        }
        writePem(file, new JcaPKCS8Generator(keys.getPrivate(), null));
    }

    private static GeneralNames serverNames() {
        List<GeneralName> names = new ArrayList<>();
        names.add(new GeneralName(GeneralName.dNSName, "localhost"));
        names.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
        names.add(new GeneralName(GeneralName.iPAddress, "::1"));
        try {
            String host = InetAddress.getLocalHost().getHostName();
            if (!host.equals("localhost") && host.matches("[A-Za-z0-9.-]+")) {
                names.add(new GeneralName(GeneralName.dNSName, host));
            }
        } catch (IOException ignored) {
            // no host name: localhost and loopback addresses only
        }
        return new GeneralNames(names.toArray(GeneralName[]::new));
    }

    private static KeyPair ecKeys() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return g.generateKeyPair();
    }

    private static BigInteger serial() {
        return new BigInteger(64, RANDOM).add(BigInteger.ONE);
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuer)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter()
                .getCertificate(
                        builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.getPrivate())));
    }

    private static void writePem(Path file, Object... objects) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter pem = new JcaPEMWriter(text)) {
            for (Object o : objects) {
                pem.writeObject(o);
            }
        }
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
            out.write(text.toString());
        }
    }
}
