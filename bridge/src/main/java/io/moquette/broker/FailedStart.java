package io.moquette.broker;

import io.moquette.interception.BrokerInterceptor;
import io.moquette.persistence.H2Builder;
import java.lang.reflect.Field;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.h2.mvstore.MVStore;

/**
 * Moquette 0.17 bug answered: a {@code startServer} that throws leaves the store file locked and its threads
 * running. Proven by {@code BrokerStoreResetTest} (after a failed start the file is closed and no thread is left).
 * Only {@code org.edgebridge.broker.moquette} may call this class.
 *
 * <p>Cleans up after a Moquette 0.17 {@code Server.startServer} that threw part-way. Our code, in Moquette's
 * package because {@code SessionEventLoop} is package-private; tied to exactly 0.17.
 *
 * <p>Why: such a server's {@code stopServer()} returns at once ("Closing a badly started server") and leaves
 * behind its scheduler (with the H2 autosave task, which goes on committing to the store file), the open
 * MVStore (the file stays locked: a second start in the same process fails with "The file is locked"), the
 * interceptor pool and the session-loop threads, which the server does not even reference when the failure
 * came from {@code SessionRegistry}'s constructor. Take {@link #before()} before {@code startServer}, and
 * call {@link #cleanUp} if it throws.
 */
public final class FailedStart {
    private final Set<Thread> loopsBefore;

    private FailedStart(Set<Thread> loopsBefore) {
        this.loopsBefore = loopsBefore;
    }

    /** Notes the session loops alive now, so that only those of the failed start are stopped later. */
    public static FailedStart before() {
        return new FailedStart(sessionLoops());
    }

    /** The session-loop threads of every broker in this JVM that are alive. */
    public static Set<Thread> sessionLoops() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t instanceof SessionEventLoop && t.isAlive())
                .collect(Collectors.toSet());
    }

    /**
     * Stops what {@code server}'s failed start left running and closes its store without writing to it.
     *
     * @return the threads of that start still alive after waiting up to 5 s for them (empty when all ended)
     */
    public Set<Thread> cleanUp(Server server) throws InterruptedException {
        Object acceptor = read(Server.class, server, "acceptor");
        if (acceptor != null) {
            server.stopServer(); // it got as far as the listeners: its own stop works
        } else {
            ScheduledExecutorService scheduler = (ScheduledExecutorService) read(Server.class, server, "scheduler");
            if (scheduler != null) {
                scheduler.shutdownNow();
                scheduler.awaitTermination(5, TimeUnit.SECONDS);
            }
            H2Builder h2 = (H2Builder) read(Server.class, server, "h2Builder");
            MVStore store = h2 == null ? null : (MVStore) read(H2Builder.class, h2, "mvStore");
            if (store != null) {
                store.closeImmediately();
            }
            BrokerInterceptor interceptor = (BrokerInterceptor) read(Server.class, server, "interceptor");
            if (interceptor != null) {
                interceptor.stop();
            }
        }
        Set<Thread> mine = sessionLoops();
        mine.removeAll(loopsBefore);
        mine.forEach(Thread::interrupt);
        for (Thread t : mine) {
            t.join(5_000);
        }
        mine.removeIf(t -> !t.isAlive());
        return mine;
    }

    private static Object read(Class<?> type, Object target, String field) {
        try {
            Field f = type.getDeclaredField(field);
            f.setAccessible(true);
            return f.get(target);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(
                    type.getSimpleName() + " has no field '" + field + "': this bridge needs Moquette 0.17", e);
        }
    }
}
