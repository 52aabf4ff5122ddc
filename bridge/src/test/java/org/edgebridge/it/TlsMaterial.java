package org.edgebridge.it;

import com.hivemq.client.mqtt.MqttClientSslConfig;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/** TLS client settings for test devices, from the PEM files the bridge's dev material uses. */
public final class TlsMaterial {
    private TlsMaterial() {}

    /** Trust {@code caFile}; present {@code certFile}/{@code keyFile} as the client certificate if not null. */
    public static MqttClientSslConfig client(Path caFile, Path certFile, Path keyFile) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("ca", certificate(caFile));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        var builder = MqttClientSslConfig.builder()
                .trustManagerFactory(tmf)
                .protocols(java.util.List.of("TLSv1.3", "TLSv1.2"));
        if (certFile != null) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("device", privateKey(keyFile), new char[0], new Certificate[] {certificate(certFile)});
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, new char[0]);
            builder = builder.keyManagerFactory(kmf);
        }
        return builder.build();
    }

    private static Certificate certificate(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    private static PrivateKey privateKey(Path pem) throws Exception {
        String base64 =
                Files.readString(pem).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("EC")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
    }
}
