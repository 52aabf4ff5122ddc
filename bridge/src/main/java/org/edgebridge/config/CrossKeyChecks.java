package org.edgebridge.config;

import static org.edgebridge.config.BrokerKeys.*;
import static org.edgebridge.config.ConfigKeys.*;
import static org.edgebridge.config.ForwarderKeys.*;
import static org.edgebridge.config.IngestKeys.INGEST_CA_FILE;
import static org.edgebridge.config.IngestKeys.INGEST_CLIENT;
import static org.edgebridge.config.IngestKeys.INGEST_URL;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.edgebridge.broker.TlsSettings;
import org.edgebridge.forward.IngestClientKind;

/**
 * The rules between keys, checked once every key's own value is valid: a total bound below the per-device one, a TLS
 * key without its certificate, an admin API open beyond loopback without a token, and the like. Each broken rule is
 * one line naming the key and the fix; the ingest credentials have their own ({@link IngestCredentials}).
 */
final class CrossKeyChecks {
    private CrossKeyChecks() {}

    /** Adds a line to {@code problems} for each rule between keys that {@code v} breaks. */
    static void check(ConfigLoader.Values v, List<String> problems) {
        if (v.get(MQTT_MAX_QUEUED_RECEIPTS_TOTAL) < v.get(MQTT_MAX_QUEUED_RECEIPTS)) {
            problems.add("mqtt.maxQueuedReceiptsTotal=" + v.get(MQTT_MAX_QUEUED_RECEIPTS_TOTAL) + ": must be at least "
                    + "mqtt.maxQueuedReceipts (" + v.get(MQTT_MAX_QUEUED_RECEIPTS) + "), the bound of one device");
        }
        if (v.get(MQTT_MAX_QUEUED_RECEIPT_BYTES_TOTAL) < v.get(MQTT_MAX_QUEUED_RECEIPT_BYTES)) {
            problems.add("mqtt.maxQueuedReceiptBytesTotal="
                    + ValueParsers.formatSize(v.get(MQTT_MAX_QUEUED_RECEIPT_BYTES_TOTAL))
                    + ": must be at least mqtt.maxQueuedReceiptBytes ("
                    + ValueParsers.formatSize(v.get(MQTT_MAX_QUEUED_RECEIPT_BYTES))
                    + "), the bound of one device");
        }
        int maxPacket = v.get(MQTT_MAX_PACKET_BYTES);
        int maxPayload = v.get(INTAKE_MAX_PAYLOAD_BYTES);
        if (maxPacket < maxPayload + 1024) {
            problems.add("mqtt.maxPacketBytes=" + maxPacket + ": must be at least intake.maxPayloadBytes + 1024 ("
                    + (maxPayload + 1024) + ") so that an oversized payload can still be answered payload_too_large");
        }
        long queued = v.get(INTAKE_MAX_QUEUED_BYTES);
        if (v.get(MQTT_MAX_BYTES_AWAITING_COMMIT) > queued / 2) {
            problems.add("mqtt.maxBytesAwaitingCommit=" + ValueParsers.formatSize(v.get(MQTT_MAX_BYTES_AWAITING_COMMIT))
                    + ": must be at most half of intake.maxQueuedBytes (" + ValueParsers.formatSize(queued)
                    + "), so that one device cannot fill the queue all devices share");
        }
        if (v.get(INGEST_CLIENT) == IngestClientKind.BLOCKING
                && !"https".equalsIgnoreCase(v.get(INGEST_URL).getScheme())) {
            problems.add("ingest.client=blocking: needs an https:// ingest.url (over http:// a reply that stops is cut "
                    + "only at the socket's read timeout, past ingest.timeout); use ingest.client=jdk");
        }
        boolean tlsOn = v.get(TLS_CERT_FILE).isPresent();
        if (tlsOn && v.get(TLS_KEY_FILE).isEmpty()) {
            problems.add("tls.keyFile: must be set when tls.certFile is set (the PEM private key of the server "
                    + "certificate)");
        }
        if (!tlsOn && v.get(TLS_KEY_FILE).isPresent()) {
            problems.add("tls.certFile: must be set when tls.keyFile is set (the PEM certificate chain)");
        }
        for (ConfigKey<Optional<Path>> fileKey :
                List.of(TLS_CERT_FILE, TLS_KEY_FILE, TLS_CA_FILE, AUTH_PASSWORD_FILE, INGEST_CA_FILE)) {
            v.get(fileKey)
                    .filter(p -> !Files.isReadable(p))
                    .ifPresent(p -> problems.add(fileKey.name() + "=" + p + ": no readable file there"));
        }
        if (v.get(TLS_CLIENT_AUTH) != TlsSettings.ClientAuth.NONE
                && v.get(TLS_CA_FILE).isEmpty()) {
            problems.add("tls.clientAuth=" + v.text(TLS_CLIENT_AUTH)
                    + ": needs tls.caFile, the CA that signs device certificates");
        }
        if (AdminSettings.readsNeedToken(v.get(ADMIN_HOST), v.get(ADMIN_TOKEN_FOR_READS))
                && v.get(ADMIN_TOKEN).isEmpty()) {
            problems.add("admin.host=" + v.text(ADMIN_HOST)
                    + (LoopbackHost.is(v.get(ADMIN_HOST))
                            ? " with admin.tokenForReads=always"
                            : " is not a loopback address")
                    + ": the status, the outbox (with payloads), the devices and the metrics then need admin.token; "
                    + "set admin.token (openssl rand -hex 24), or admin.host=127.0.0.1");
        }
        int port = v.get(MQTT_PORT);
        if (port == 0 && !tlsOn) {
            problems.add("mqtt.port=0: with no TLS listener (tls.certFile unset) no device could connect; set "
                    + "tls.certFile or a port");
        }
        if (tlsOn && port > 0 && port == v.get(TLS_PORT)) {
            problems.add("tls.port=" + port + ": must differ from mqtt.port");
        }
        Duration initial = v.get(FORWARDER_BACKOFF_INITIAL);
        Duration max = v.get(FORWARDER_BACKOFF_MAX);
        if (max.compareTo(initial) < 0) {
            problems.add("forwarder.backoffMax=" + ValueParsers.format(max)
                    + ": must be at least forwarder.backoffInitial (" + ValueParsers.format(initial) + ")");
        }
    }
}
