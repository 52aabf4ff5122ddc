package org.edgebridge.admin;

import static org.edgebridge.admin.Counters.counter;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.function.ToDoubleFunction;
import org.edgebridge.broker.BrokerView;
import org.edgebridge.broker.DeviceView;

/**
 * The embedded broker's meters ({@code edgebridge_broker_*}): receipts it left out or queues, connections and logins
 * refused, the ACL's refusals, takeovers, certificate devices, PUBLISHes waiting for the intake, reads paused, wills.
 */
final class BrokerMeters {
    private BrokerMeters() {}

    static void register(PrometheusMeterRegistry registry, BrokerView broker) {
        FunctionCounter.builder(
                        "edgebridge.broker.receipts.left.out",
                        broker,
                        b -> b.status().limits().receiptsDropped())
                .tag("bound", "device")
                .description("receipts not queued for a device (mqtt.maxQueuedReceipts, "
                        + "mqtt.maxQueuedReceiptBytes); the device gets them when it resends")
                .register(registry);
        FunctionCounter.builder(
                        "edgebridge.broker.receipts.left.out",
                        broker,
                        b -> b.status().limits().receiptsDroppedSiteFull())
                .tag("bound", "site")
                .description("receipts not queued "
                        + "because all devices' queues together were full (mqtt.maxQueuedReceiptsTotal, "
                        + "mqtt.maxQueuedReceiptBytesTotal)")
                .register(registry);
        Gauge.builder(
                        "edgebridge.broker.queued.receipts",
                        broker,
                        b -> b.status().limits().queuedReceipts())
                .description("receipts queued by the broker for all devices, as last seen")
                .register(registry);
        Gauge.builder(
                        "edgebridge.broker.queued.receipt.bytes",
                        broker,
                        b -> b.status().limits().queuedReceiptBytes())
                .baseUnit("bytes")
                .description("their bytes")
                .register(registry);
        Gauge.builder(
                        "edgebridge.broker.connected.clients",
                        broker,
                        b -> b.status().connectedClients())
                .description("MQTT connections of devices open now")
                .register(registry);
        counter(
                registry,
                "edgebridge.broker.denied.publishes",
                broker,
                b -> b.status().deniedPublishes(),
                "PUBLISHes refused by the ACL");
        counter(
                registry,
                "edgebridge.broker.denied.subscribes",
                broker,
                b -> b.status().deniedSubscribes(),
                "SUBSCRIBEs refused by the ACL");
        counter(
                registry,
                "edgebridge.broker.protocol.violations",
                broker,
                b -> b.status().protocolViolations(),
                "connections closed for malformed or oversized packets");
        counter(
                registry,
                "edgebridge.broker.store.resets",
                broker,
                b -> b.status().storeResets(),
                "broker stores set aside by this process because the broker could not start on them (alarm "
                        + "broker_store_reset)");
        counter(
                registry,
                "edgebridge.broker.takeovers",
                broker,
                b -> b.devices().list().stream()
                        .mapToLong(DeviceView::takeovers)
                        .sum(),
                "session takeovers");
        Gauge.builder(
                        "edgebridge.broker.takeover.storms",
                        broker,
                        b -> b.takeoverStorms().size())
                .description("client ids over the takeover alarm threshold in the last minute")
                .register(registry);
        loginsRefused(registry, broker, "credentials", b -> b.status().loginsRefusedCredentials());
        loginsRefused(registry, broker, "throttled", b -> b.status().loginsRefusedThrottled());
        loginsRefused(registry, broker, "busy", b -> b.status().loginsRefusedBusy());
        loginsRefused(registry, broker, "busy_address", b -> b.status().loginsRefusedBusyAddress());
        counter(
                registry,
                "edgebridge.broker.connections.before.login.oldest.closed",
                broker,
                b -> b.status().limits().beforeLoginOldestClosed(),
                "connections that had not logged in closed, the oldest, "
                        + "to make room for a new one (mqtt.maxConnectionsBeforeLogin, "
                        + "mqtt.maxConnectionsBeforeLoginPerNetwork)");
        Gauge.builder(
                        "edgebridge.broker.connections.before.login",
                        broker,
                        b -> b.status().limits().openBeforeLogin())
                .description("MQTT connections open now that have not logged in")
                .register(registry);
        counter(
                registry,
                "edgebridge.broker.connections.held.too.many",
                broker,
                b -> b.status().limits().heldTooMany(),
                "connections closed for sending more than mqtt.maxHeldPackets packets before their CONNECT was taken");
        loginsRefused(
                registry,
                broker,
                "certificate_needed",
                b -> b.certificateDevices().refusedWithoutCertificate());
        Gauge.builder(
                        "edgebridge.broker.certificate.devices",
                        broker,
                        b -> b.certificateDevices().remembered())
                .description("client ids remembered because they connected with a client certificate (each needs it "
                        + "on every listener); at most auth.maxCertificateDevices")
                .register(registry);
        counter(
                registry,
                "edgebridge.broker.certificate.devices.not.remembered",
                broker,
                b -> b.certificateDevices().notRemembered(),
                "client ids that connected with a certificate but were not remembered: auth.maxCertificateDevices "
                        + "reached");
        Gauge.builder(
                        "edgebridge.broker.waiting.publishes",
                        broker,
                        b -> b.status().waitingPublishes())
                .description("PUBLISHes waiting in front of the intake writer (the broker's interceptor queue and the "
                        + "intake's queue)")
                .register(registry);
        Gauge.builder(
                        "edgebridge.broker.waiting.publishes.most",
                        broker,
                        b -> b.status().mostWaitingPublishes())
                .description("the most PUBLISHes seen waiting in front of the intake since start")
                .register(registry);
        counter(
                registry,
                "edgebridge.broker.read.pauses",
                broker,
                b -> b.status().readPauses(),
                "times a device connection stopped being read because too many PUBLISHes waited for the intake");
        counter(
                registry,
                "edgebridge.broker.awaiting.commit.pauses",
                broker,
                b -> b.status().limits().awaitingCommitPauses(),
                "times a device connection stopped being read because mqtt.maxCommandsAwaitingCommit of its commands, "
                        + "or mqtt.maxBytesAwaitingCommit of their payloads, waited for their commit (their PUBACKs)");
        Gauge.builder(
                        "edgebridge.broker.awaiting.commit.most",
                        broker,
                        b -> b.status().limits().mostAwaitingCommit())
                .description(
                        "the most commands of one connection seen waiting for their commit (and PUBACK) since start")
                .register(registry);
        Gauge.builder(
                        "edgebridge.broker.awaiting.commit.most.bytes",
                        broker,
                        b -> b.status().limits().mostAwaitingCommitBytes())
                .description("the most payload bytes of one connection seen waiting for their commit since start")
                .baseUnit("bytes")
                .register(registry);
        counter(
                registry,
                "edgebridge.broker.wills",
                broker,
                b -> b.status().willsReceived(),
                "Last Wills of broken connections, taken as commands of their devices");
    }

    private static void loginsRefused(
            PrometheusMeterRegistry registry, BrokerView broker, String reason, ToDoubleFunction<BrokerView> f) {
        FunctionCounter.builder("edgebridge.broker.logins.refused", broker, f)
                .tag("reason", reason)
                .description("CONNECTs refused at login: credentials = wrong, unknown or missing (CONNACK 4); "
                        + "throttled = "
                        + "too many failed logins of the client id or address this minute, busy = too many password "
                        + "checks "
                        + "waiting (auth.queue), busy_address = too many of one address (auth.queuePerAddress) (all "
                        + "CONNACK 3); certificate_needed = a client id that needs its client certificate came without "
                        + "it "
                        + "(CONNACK 5)")
                .register(registry);
    }
}
