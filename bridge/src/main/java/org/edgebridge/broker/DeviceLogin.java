package org.edgebridge.broker;

import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Decides whether a CONNECT's credentials let it in, before Moquette sees it.
 *
 * <ul>
 *   <li>A registered client id (in {@code auth.passwordFile}) always needs its credentials — its username and
 *       password, or a client certificate naming it — even with {@code auth.anonymous=true}: anonymous access
 *       covers only ids that are not registered.</li>
 *   <li>Password checks (PBKDF2, tens of milliseconds) run on a small bounded pool ("mqtt-auth-N"), never on the
 *       network threads; when its queue is full the CONNECT is refused with CONNACK 3. An unknown client id or
 *       username costs the same as a wrong password, so timing does not tell which exist.</li>
 *   <li>A client id or source address with too many failed logins in the last minute is refused with CONNACK 3
 *       without a password check ({@link FailedLogins}).</li>
 * </ul>
 *
 * <p>Thread-safe. {@link #close()} stops the pool; CONNECTs still waiting for a check are never answered, so the
 * listeners (which close their connections) must be closed first.
 */
public final class DeviceLogin implements AutoCloseable {
    /**
     * The username prefix of the credentials a device proven by its client certificate is passed on with (see
     * {@code ConnectPolicy}); reserved: a CONNECT that brings such a username itself is refused.
     */
    public static final String CERT_USER_PREFIX = "cert:";

    /** What a CONNECT's credentials came to. */
    public enum Result { ACCEPTED, BAD_CREDENTIALS, THROTTLED, BUSY }

    private final Optional<PasswordFile> passwords;
    private final boolean anonymous;
    private final FailedLogins failures;
    private final RefusalLog log;
    private final ThreadPoolExecutor pool;
    private final AtomicLong refusedBusy = new AtomicLong();
    private final AtomicLong refusedThrottled = new AtomicLong();
    private final AtomicLong refusedCredentials = new AtomicLong();

    DeviceLogin(Optional<PasswordFile> passwords, boolean anonymous, FailedLogins failures, RefusalLog log, int threads,
            int queue) {
        this.passwords = passwords;
        this.anonymous = anonymous;
        this.failures = failures;
        this.log = log;
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(queue), r -> {
            Thread t = new Thread(r, "mqtt-auth-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }, new ThreadPoolExecutor.AbortPolicy());
    }

    /**
     * @param certified the connection presented a client certificate that names this client id
     * @param address the client's address (for throttling and the log), or null
     * @return completed at once unless a password has to be checked; never completes exceptionally
     */
    public CompletableFuture<Result> check(String clientId, String username, byte[] password, boolean certified, String address) {
        if (username == null) {
            if (certified) {
                return done(Result.ACCEPTED);
            }
            if (passwords.map(p -> p.isRegistered(clientId)).orElse(false)) {
                return refused(clientId, "registered, so it needs its username and password (or its client certificate)");
            }
            return anonymous ? done(Result.ACCEPTED) : refused(clientId, "no credentials and auth.anonymous=false");
        }
        if (username.startsWith(CERT_USER_PREFIX)) {
            return refused(clientId, "usernames starting with " + CERT_USER_PREFIX + " are reserved");
        }
        if (passwords.isEmpty()) {
            // No registry: credentials cannot be checked, so they count for nothing more than anonymous.
            return anonymous ? done(Result.ACCEPTED) : refused(clientId, "credentials given but no auth.passwordFile to check them");
        }
        PasswordFile file = passwords.get();
        if (file.isVerified(clientId, username, password)) {
            return done(Result.ACCEPTED);
        }
        if (failures.throttled(clientId, address)) {
            refusedThrottled.incrementAndGet();
            log.warn("throttled", clientId, "refused CONNECT of " + RefusalLog.quote(clientId) + " from " + address
                    + " with CONNACK 3: too many failed logins of this client id or address in the last minute");
            return done(Result.THROTTLED);
        }
        CompletableFuture<Result> result = new CompletableFuture<>();
        try {
            pool.execute(() -> {
                try {
                    if (file.verify(clientId, username, password)) {
                        result.complete(Result.ACCEPTED);
                    } else {
                        failures.failed(clientId, address);
                        result.complete(refusedNow(clientId, "not registered with username " + RefusalLog.quote(username)
                                + " and that password (from " + address + ")"));
                    }
                } catch (RuntimeException e) {
                    result.complete(refusedNow(clientId, "the password check failed: " + e));
                }
            });
        } catch (RejectedExecutionException e) {
            refusedBusy.incrementAndGet();
            log.warn("busy", "", "refused CONNECTs with CONNACK 3: " + pool.getQueue().size()
                    + " password checks are waiting already (a login flood?)");
            return done(Result.BUSY);
        }
        return result;
    }

    /** Whether Moquette, which asks again on a network thread, should let these credentials in: no PBKDF2 here. */
    public boolean alreadyAccepted(String clientId, String username, byte[] password) {
        if (passwords.isEmpty()) {
            return anonymous;
        }
        return passwords.get().isVerified(clientId, username, password);
    }

    public long refusedBusy() {
        return refusedBusy.get();
    }

    public long refusedThrottled() {
        return refusedThrottled.get();
    }

    public long refusedCredentials() {
        return refusedCredentials.get();
    }

    private CompletableFuture<Result> refused(String clientId, String why) {
        return done(refusedNow(clientId, why));
    }

    private Result refusedNow(String clientId, String why) {
        refusedCredentials.incrementAndGet();
        log.info("credentials", clientId, "refused CONNECT of " + RefusalLog.quote(clientId) + " with CONNACK 4: " + why);
        return Result.BAD_CREDENTIALS;
    }

    private static CompletableFuture<Result> done(Result r) {
        return CompletableFuture.completedFuture(r);
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
