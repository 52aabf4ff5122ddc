package org.edgebridge.broker.moquette;

import io.moquette.broker.ISessionsRepository;
import io.moquette.broker.ISessionsRepository.SessionData;
import io.moquette.broker.SessionRegistry;
import io.moquette.broker.subscriptions.Subscription;
import io.moquette.broker.subscriptions.Topic;
import io.moquette.persistence.H2Builder;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Moquette 0.17's own H2 store classes driven the way the broker drives them, without a broker: a life opens
 * the store, saves persistent sessions as {@code SessionRegistry.createNewSession} does (no expiry instant,
 * a queue per session), commits as the autosave task does, and then "dies": the file is copied as it is on
 * disk at that moment, which is what a {@code kill -9} leaves behind.
 */
final class MoquetteStoreLives {
    static final int EXPIRY_SECONDS = 7 * 24 * 3600;

    private MoquetteStoreLives() {}

    /** One life on a copy of {@code from} (or a new store): saves {@code newClients}, commits, and leaves a crash image in {@code to}. */
    static void liveAndDie(Path from, Path to, List<String> newClients) {
        try {
            Path dir = Files.createTempDirectory(to.getParent(), "life");
            if (from != null) {
                Files.copy(from.resolve(BrokerStoreRepair.STORE_FILE), dir.resolve(BrokerStoreRepair.STORE_FILE));
            }
            CapturingScheduler scheduler = new CapturingScheduler();
            H2Builder h2 = new H2Builder(scheduler, dir, 1, Clock.systemUTC()).initStore();
            try {
                ISessionsRepository sessions = h2.sessionsRepository();
                var queues = h2.queueRepository();
                var subscriptions = h2.subscriptionsRepository();
                h2.retainedRepository();
                for (String id : newClients) {
                    var queue = queues.getOrCreateQueue(id);
                    sessions.saveSession(
                            new SessionData(id, MqttVersion.MQTT_3_1_1, EXPIRY_SECONDS, Clock.systemUTC()));
                    subscriptions.addNewSubscription(
                            new Subscription(id, new Topic(receiptTopic(id)), MqttQoS.AT_LEAST_ONCE));
                    queue.enqueue(new SessionRegistry.PublishedMessage(
                            new Topic(receiptTopic(id)),
                            MqttQoS.AT_LEAST_ONCE,
                            Unpooled.copiedBuffer(receiptOf(id), StandardCharsets.UTF_8),
                            false));
                }
                scheduler.autosave.run();
                Files.createDirectories(to);
                Files.copy(
                        dir.resolve(BrokerStoreRepair.STORE_FILE),
                        to.resolve(BrokerStoreRepair.STORE_FILE),
                        StandardCopyOption.REPLACE_EXISTING);
            } finally {
                h2.closeStore();
                scheduler.shutdownNow();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What Moquette reads at start-up ({@code SessionRegistry.recreateSessionPool}): the stored sessions. */
    static List<SessionData> sessionsAsMoquetteReadsThem(Path storeDir) {
        CapturingScheduler scheduler = new CapturingScheduler();
        H2Builder h2 = new H2Builder(scheduler, storeDir, 1, Clock.systemUTC()).initStore();
        try {
            return new ArrayList<>(h2.sessionsRepository().list());
        } finally {
            h2.closeStore();
            scheduler.shutdownNow();
        }
    }

    static String receiptTopic(String clientId) {
        return "devices/" + clientId + "/receipts";
    }

    static String receiptOf(String clientId) {
        return "{\"commandId\":\"c-" + clientId + "\",\"final\":true}";
    }

    /** What Moquette reads at start-up of the subscriptions and of each client's queue (its first message). */
    static Map<String, String> queuedAsMoquetteReadsThem(Path storeDir, List<String> clientIds) {
        CapturingScheduler scheduler = new CapturingScheduler();
        H2Builder h2 = new H2Builder(scheduler, storeDir, 1, Clock.systemUTC()).initStore();
        try {
            Map<String, String> read = new TreeMap<>();
            for (Subscription s : h2.subscriptionsRepository().listAllSubscriptions()) {
                read.put("subscription " + s.getClientId(), s.getTopicFilter().toString());
            }
            var queues = h2.queueRepository();
            for (String id : clientIds) {
                if (queues.containsQueue(id)
                        && queues.getOrCreateQueue(id).dequeue() instanceof SessionRegistry.PublishedMessage m) {
                    read.put("queued " + id, m.getTopic() + " " + m.getPayload().toString(StandardCharsets.UTF_8));
                }
            }
            return read;
        } finally {
            h2.closeStore();
            scheduler.shutdownNow();
        }
    }

    static List<String> clients(String prefix, int from, int to) {
        List<String> ids = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            ids.add(String.format("%s-%03d", prefix, i));
        }
        return ids;
    }

    /** Keeps H2Builder's autosave task to run it by hand, so that a test decides when a commit happens. */
    private static final class CapturingScheduler extends ScheduledThreadPoolExecutor {
        Runnable autosave;

        CapturingScheduler() {
            super(1);
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(
                Runnable command, long initialDelay, long delay, TimeUnit unit) {
            autosave = command;
            return null;
        }
    }
}
