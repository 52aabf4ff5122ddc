package io.moquette.broker;

import io.moquette.broker.config.IConfig;
import io.moquette.broker.security.IAuthenticator;
import io.moquette.broker.subscriptions.ISubscriptionsDirectory;
import io.moquette.broker.subscriptions.Topic;
import io.moquette.interception.BrokerInterceptor;
import io.moquette.persistence.H2Builder;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.util.AttributeKey;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.h2.mvstore.MVStore;
import org.slf4j.LoggerFactory;

/**
 * Moquette 0.17 limits answered: its protocol handler, connection state, subscription directory and queues are
 * package-private, and only {@code org.edgebridge.broker.moquette} may call this class. Proven by every integration
 * test that connects a device (the listeners use the handler), {@code CrashWindowIT} ({@code routesTo}),
 * {@code InboundBackPressureIT} ({@code inboundBacklog}) and {@code DeviceLoginIT} ({@code notifyPublishedInOrder}).
 *
 * <p>The edge bridge's window into Moquette 0.17's package-private classes, so that the bridge can run its own
 * MQTT listeners in front of Moquette's protocol handler. This is our code, placed in Moquette's package
 * because the classes it needs are package-private; it is tied to exactly 0.17 and checked by the
 * integration tests at every build.
 *
 * <p>Why: in 0.17, {@code MQTTConnection} marks a connection as connected in a listener that can run after the
 * client has already received its CONNACK and sent SUBSCRIBE; that SUBSCRIBE then closes the connection
 * ("SUBSCRIBE received on already closed connection"), measured here on about 4 % of fresh connections.
 * The bridge's listener holds a client's packets after CONNECT until {@link #isConnected} is true.
 */
public final class MoquetteInternals {
    private static final AttributeKey<Object> CONNECTION = AttributeKey.valueOf("connection");

    private MoquetteInternals() {}

    /** Moquette's MQTT protocol handler (shared by all channels) for a started {@link Server}. */
    public static ChannelHandler protocolHandler(Server server, IConfig config, IAuthenticator authenticator) {
        SessionRegistry sessions = (SessionRegistry) read(server, "sessions");
        PostOffice postOffice = (PostOffice) read(server, "dispatcher");
        if (sessions == null || postOffice == null) {
            throw new IllegalStateException("the broker is not started");
        }
        return new NewNettyMQTTHandler(
                new MQTTConnectionFactory(new BrokerConfiguration(config), authenticator, sessions, postOffice));
    }

    /** Moquette's handler that closes a connection whose keep-alive ran out. */
    public static ChannelHandler idleTimeoutHandler() {
        return new MoquetteIdleTimeoutHandler();
    }

    /** True once Moquette has finished accepting the CONNECT of this channel (CONNACK sent, session bound). */
    public static boolean isConnected(Channel channel) {
        Object connection = channel.attr(CONNECTION).get();
        return connection instanceof MQTTConnection c && c.isConnected();
    }

    /**
     * Whether the broker routes messages published on {@code topic} to {@code clientId}, i.e. its subscription
     * directory holds a matching subscription of that client. Thread-safe (the directory is a concurrent trie).
     */
    public static boolean routesTo(Server server, String clientId, String topic) {
        PostOffice postOffice = (PostOffice) read(server, "dispatcher");
        if (postOffice == null) {
            return false;
        }
        ISubscriptionsDirectory directory;
        try {
            Field f = PostOffice.class.getDeclaredField("subscriptions");
            f.setAccessible(true);
            directory = (ISubscriptionsDirectory) f.get(postOffice);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(
                    "Moquette's PostOffice has no field 'subscriptions': this bridge needs Moquette 0.17", e);
        }
        return directory.matchWithoutQosSharpening(Topic.asTopic(topic)).stream()
                .anyMatch(s -> clientId.equals(s.getClientId()));
    }

    /**
     * Hands a PUBLISH of {@code clientId} to the interceptors the way Moquette hands its own: through that client's
     * session loop, so after every PUBLISH the client sent before, then on the interceptor thread. Used for a Last
     * Will, which 0.17 publishes only to subscribers (never to interceptors) and without asking the ACL.
     *
     * @return false if the session loop's queue was full (nothing was handed on)
     */
    public static boolean notifyPublishedInOrder(
            Server server, String clientId, String username, String topic, byte[] payload) {
        PostOffice postOffice = (PostOffice) read(server, "dispatcher");
        BrokerInterceptor interceptor = (BrokerInterceptor) read(server, "interceptor");
        if (postOffice == null || interceptor == null) {
            return false;
        }
        MqttPublishMessage msg = MqttMessageBuilders.publish()
                .topicName(topic)
                .qos(MqttQoS.AT_LEAST_ONCE)
                .retained(false)
                .messageId(1)
                .payload(Unpooled.wrappedBuffer(payload))
                .build();
        PostOffice.RouteResult routed = postOffice.routeCommand(clientId, "EDGE BRIDGE WILL", () -> {
            try {
                interceptor.notifyTopicPublished(msg, clientId, username);
            } catch (RuntimeException e) {
                // never let it escape: an exception kills a 0.17 session loop for good
                LoggerFactory.getLogger(MoquetteInternals.class).error("handing the will of {} on failed", clientId, e);
            } finally {
                msg.release();
            }
            return clientId;
        });
        if (!routed.isSuccess()) {
            msg.release();
        }
        return routed.isSuccess();
    }

    /**
     * How much work waits inside a started {@link Server} between the listeners and the interceptor thread: the
     * commands queued for its session loops (a device's PUBLISHes, but also its SUBSCRIBEs, PUBACKs and the receipts
     * routed to it) plus the PUBLISHes queued for the interceptor thread, which 0.17 does not bound. Each is a
     * queue's size: O(1), thread-safe.
     */
    public static IntSupplier inboundBacklog(Server server) {
        Object interceptor = read(server, "interceptor");
        PostOffice postOffice = (PostOffice) read(server, "dispatcher");
        try {
            ThreadPoolExecutor executor = (ThreadPoolExecutor)
                    field(interceptor.getClass(), "executor").get(interceptor);
            BlockingQueue<Runnable> publishes = executor.getQueue();
            Object loops = field(PostOffice.class, "sessionLoops").get(postOffice);
            BlockingQueue<?>[] sessionQueues = (BlockingQueue<?>[])
                    field(SessionEventLoopGroup.class, "sessionQueues").get(loops);
            return () -> {
                int n = publishes.size();
                for (BlockingQueue<?> q : sessionQueues) {
                    n += q.size();
                }
                return n;
            };
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException(
                    "Moquette's interceptor pool or session-loop queues are not where 0.17 "
                            + "keeps them: "
                            + "this bridge needs Moquette 0.17",
                    e);
        }
    }

    /**
     * Removes every retained message from the broker's store, and returns how many there were. 0.17 keeps a retained
     * PUBLISH for ever and offers no call that lists or clears them all; its H2 repository holds them in one map
     * ({@code retained_store}), which is cleared here. The bridge takes every PUBLISH without its retain flag, so
     * only a store written by an older bridge holds any.
     */
    public static int clearRetained(Server server) {
        PostOffice postOffice = (PostOffice) read(server, "dispatcher");
        try {
            Object repository = field(PostOffice.class, "retainedRepository").get(postOffice);
            int cleared = 0;
            for (Field f : repository.getClass().getDeclaredFields()) {
                if (Map.class.isAssignableFrom(f.getType())) {
                    f.setAccessible(true);
                    Map<?, ?> retained = (Map<?, ?>) f.get(repository);
                    cleared += retained.size();
                    retained.clear();
                }
            }
            return cleared;
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException(
                    "Moquette's retained messages are not where 0.17 keeps them: this bridge needs Moquette 0.17", e);
        }
    }

    /**
     * How many messages 0.17 holds queued for this client (past the 10 in flight): the H2 queue's head minus tail, or
     * the size of an in-memory queue; 0 without a session. Cheap (two field reads), thread-safe enough for a bound.
     */
    @SuppressWarnings("unchecked")
    public static int queuedFor(Server server, String clientId) {
        SessionRegistry sessions = (SessionRegistry) read(server, "sessions");
        try {
            Session session =
                    ((Map<String, Session>) field(SessionRegistry.class, "pool").get(sessions)).get(clientId);
            if (session == null) {
                return 0;
            }
            Object queue = field(Session.class, "sessionQueue").get(session);
            for (Field f : queue.getClass().getDeclaredFields()) {
                if (f.getName().equals("head") && f.getType() == AtomicLong.class) {
                    f.setAccessible(true);
                    long head = ((AtomicLong) f.get(queue)).get();
                    long tail = ((AtomicLong) field(queue.getClass(), "tail").get(queue)).get();
                    return (int) Math.max(0, head - tail);
                }
                if (Queue.class.isAssignableFrom(f.getType())) {
                    f.setAccessible(true);
                    Queue<?> q = (Queue<?>) f.get(queue);
                    return q == null ? 0 : q.size();
                }
            }
            return 0;
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException(
                    "Moquette's session queues are not where 0.17 keeps them: this bridge needs Moquette 0.17", e);
        }
    }

    /**
     * Shuts down the event loops of Moquette's own acceptor at once. The bridge binds its own listeners, so these
     * loops never carry a connection, but 0.17's {@code stopServer()} shuts them down with Netty's default quiet
     * period and waits for it: every stop of the bridge took 2 s more (docs/BENCHMARKS.md). Called just before
     * {@code stopServer()}, whose own shutdown call then finds them terminated.
     */
    public static void stopIdleAcceptor(Server server, long timeoutMillis) {
        Object acceptor = read(server, "acceptor");
        if (acceptor == null) {
            return;
        }
        try {
            for (String name : new String[] {"workerGroup", "bossGroup"}) {
                EventLoopGroup group =
                        (EventLoopGroup) field(acceptor.getClass(), name).get(acceptor);
                if (group != null) {
                    group.shutdownGracefully(0, timeoutMillis, TimeUnit.MILLISECONDS)
                            .awaitUninterruptibly(timeoutMillis + 1_000);
                }
            }
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException(
                    "Moquette's acceptor keeps no event loops where 0.17 keeps them: "
                            + "this bridge needs Moquette 0.17",
                    e);
        }
    }

    /**
     * Stops Moquette's scheduler (the H2 store's commit every {@code autosaveInterval}) without interrupting a commit
     * under way, and waits for it. 0.17's {@code stopServer()} calls {@code shutdownNow()} on it and then closes the
     * store: the interrupt closes the store's file channel in the middle of a commit (NIO closes a channel whose
     * thread is interrupted), the store enters its panic state, and {@code MVStore.close} then spins at full CPU in
     * {@code closeStore} with the committer: the stop never ends and the sessions of the last seconds are lost
     * (measured: 2 of 4 clean stops with 200 persistent sessions, docs/moquette.md). Called just before
     * {@code stopServer()}, whose {@code shutdownNow()} then finds it terminated.
     *
     * @return whether it ended within the time (false: a commit is still running; the stop goes on regardless)
     */
    public static boolean stopStoreCommitter(Server server, long timeoutMillis) throws InterruptedException {
        if (!(read(server, "scheduler") instanceof ScheduledExecutorService scheduler)) {
            return true;
        }
        scheduler.shutdown(); // cancels the periodic commit (ScheduledThreadPoolExecutor's default), lets one run out
        return scheduler.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Makes the H2 store sync what it commits. 0.17 commits it every {@code autosave_interval} on its scheduler
     * ({@code H2Builder.initStore}: {@code MVStore.commit()}), and h2-mvstore 2.1.212 never fsyncs a commit (only
     * {@code MVStore.sync()} calls {@code FileChannel.force}, and nothing in Moquette calls it; {@code close} does not
     * either): after a power cut the store held none of the sessions of that life, and with its directory never synced
     * it was gone (every reconnect after a cut got {@code sessionPresent=0}). This schedules, on the same
     * scheduler, a commit followed by a sync of the file whenever the store's version moved since the last sync. A
     * session acknowledged one {@code interval} plus a commit and an fsync before a cut survives it.
     *
     * <p>A commit that fails (a full disk) leaves h2-mvstore closed for good ("panic"); Moquette would find out only
     * when a session loop next touches the store, and die there. {@code failed} is called, once, with the failure,
     * so that the broker is restarted at once. {@code synced} is called after each run that left every commit synced
     * (what a session acknowledged before that run's start is on the disk).
     */
    public static void syncStoreCommits(
            Server server, long intervalMillis, Runnable synced, Consumer<RuntimeException> failed) {
        if (!(read(server, "scheduler") instanceof ScheduledExecutorService scheduler)
                || !(read(server, "h2Builder") instanceof H2Builder builder)) {
            return; // no persistence: nothing to sync
        }
        MVStore store;
        try {
            store = (MVStore) field(H2Builder.class, "mvStore").get(builder);
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException(
                    "Moquette's H2Builder keeps no MVStore where 0.17 keeps it: this bridge "
                            + "needs "
                            + "Moquette 0.17",
                    e);
        }
        long[] syncedVersion = {-1};
        boolean[] reported = {false};
        scheduler.scheduleWithFixedDelay(
                () -> {
                    try {
                        if (store.isClosed()) {
                            // this scheduler is stopped before a clean close of the store: closed here means it failed
                            throw new IllegalStateException("the broker store closed itself after a failed write");
                        }
                        long version = store.commit();
                        if (version != syncedVersion[0]) {
                            store.sync();
                            syncedVersion[0] = version;
                        }
                        synced.run();
                    } catch (RuntimeException e) {
                        if (!reported[0]) {
                            reported[0] = true;
                            LoggerFactory.getLogger(MoquetteInternals.class)
                                    .warn("broker store: commit and sync failed: {}", e.toString());
                            failed.accept(e);
                        }
                    }
                },
                intervalMillis,
                intervalMillis,
                TimeUnit.MILLISECONDS);
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        Field f = type.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }

    private static Object read(Server server, String field) {
        try {
            Field f = Server.class.getDeclaredField(field);
            f.setAccessible(true);
            return f.get(server);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(
                    "Moquette's Server has no field '" + field + "': this bridge needs Moquette 0.17", e);
        }
    }
}
