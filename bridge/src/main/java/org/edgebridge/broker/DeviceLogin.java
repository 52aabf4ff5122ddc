package org.edgebridge.broker;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Decides whether a CONNECT's credentials let it in, before Moquette sees it.
 *
 * <ul>
 *   <li>A registered client id (in {@code auth.passwordFile}) always needs its credentials — its username and
 *       password, or a client certificate naming it — even with {@code auth.anonymous=true}: anonymous access
 *       covers only ids that are not registered.</li>
 *   <li>Password checks (PBKDF2, tens of milliseconds) run on a small pool ("mqtt-auth-N"), never on the network
 *       threads. They are counted when queued, not when done: at most {@code auth.queuePerAddress} wait or run for
 *       one source address (IPv4 address, IPv6 /64) and {@code auth.queue} in all; past either the CONNECT is
 *       refused with CONNACK 3 at once. Client ids whose password was verified before, by this run or an earlier one
 *       ({@link RecentLogins}), wait in a lane of their own (as long,
 *       one check per client id), served first: a flood of strangers from 10-20 addresses once kept every device
 *       that was not in the verified cache out. An unknown client id or username costs the same as a
 *       wrong password, so timing does not tell which exist.</li>
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
    public enum Result {
        ACCEPTED,
        BAD_CREDENTIALS,
        THROTTLED,
        BUSY
    }

    private final Optional<PasswordFile> passwords;
    private final boolean anonymous;
    private final FailedLogins failures;
    private final RefusalLog log;
    private final ThreadPoolExecutor pool;
    private final RecentLogins recent;
    private final int queue;
    private final int queuePerAddress;
    private final AtomicLong sequence = new AtomicLong();
    // guarded by this: the checks waiting or running, per lane, per address and per client id of the known lane
    private int waitingStrangers;
    private int waitingKnown;
    private final Map<String, Integer> waitingPerAddress = new HashMap<>();
    private final Set<String> waitingKnownIds = new HashSet<>();
    private final AtomicLong refusedBusy = new AtomicLong();
    private final AtomicLong refusedBusyAddress = new AtomicLong();
    private final AtomicLong refusedThrottled = new AtomicLong();
    private final AtomicLong refusedCredentials = new AtomicLong();

    /**
     * @param recent client ids whose password was verified before (also by an earlier run): their checks wait in
     *     the lane served first
     * @param queue checks that may wait in each lane
     * @param queuePerAddress checks that may wait or run for one source address (IPv4 address, IPv6 /64), strangers'
     *     lane
     */
    DeviceLogin(
            Optional<PasswordFile> passwords,
            boolean anonymous,
            FailedLogins failures,
            RefusalLog log,
            int threads,
            int queue,
            int queuePerAddress,
            RecentLogins recent) {
        this.recent = recent;
        this.queue = queue;
        this.queuePerAddress = queuePerAddress;
        this.passwords = passwords;
        this.anonymous = anonymous;
        this.failures = failures;
        this.log = log;
        AtomicInteger n = new AtomicInteger();
        // bounded by the counts above (at most 2 x queue waiting); the known lane first, then by arrival
        this.pool = new ThreadPoolExecutor(
                threads,
                threads,
                0,
                TimeUnit.MILLISECONDS,
                new PriorityBlockingQueue<>(),
                r -> {
                    Thread t = new Thread(r, "mqtt-auth-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                },
                new ThreadPoolExecutor.AbortPolicy());
    }

    /**
     * @param certified the connection presented a client certificate that names this client id
     * @param address the client's address (for throttling and the log), or null
     * @return completed at once unless a password has to be checked; never completes exceptionally
     */
    public CompletableFuture<Result> check(
            String clientId, String username, byte[] password, boolean certified, String address) {
        if (username == null) {
            if (certified) {
                return done(Result.ACCEPTED);
            }
            if (passwords.map(p -> p.isRegistered(clientId)).orElse(false)) {
                return refused(
                        clientId, "registered, so it needs its username and password (or its client certificate)");
            }
            return anonymous ? done(Result.ACCEPTED) : refused(clientId, "no credentials and auth.anonymous=false");
        }
        if (username.startsWith(CERT_USER_PREFIX)) {
            return refused(clientId, "usernames starting with " + CERT_USER_PREFIX + " are reserved");
        }
        if (passwords.isEmpty()) {
            // No registry: credentials cannot be checked, so they count for nothing more than anonymous.
            return anonymous
                    ? done(Result.ACCEPTED)
                    : refused(clientId, "credentials given but no auth.passwordFile to check them");
        }
        PasswordFile file = passwords.get();
        if (file.isVerified(clientId, username, password)) {
            recent.verified(clientId);
            return done(Result.ACCEPTED);
        }
        if (failures.throttled(clientId, address)) {
            refusedThrottled.incrementAndGet();
            log.warn(
                    "throttled",
                    clientId,
                    "refused CONNECT of " + RefusalLog.quote(clientId) + " from " + address
                            + " with CONNACK 3: too many failed logins of this client id or address in the last "
                            + "minute");
            return done(Result.THROTTLED);
        }
        Admission admission = admit(clientId, address, recent.contains(clientId));
        if (admission.refusal() != null) {
            return busy(admission.refusal());
        }
        boolean known = admission.knownLane();
        CompletableFuture<Result> result = new CompletableFuture<>();
        Runnable work = () -> {
            try {
                if (file.verify(clientId, username, password)) {
                    recent.verified(clientId);
                    result.complete(Result.ACCEPTED);
                } else {
                    failures.failed(clientId, address);
                    result.complete(refusedNow(
                            clientId,
                            "not registered with username " + RefusalLog.quote(username) + " and that password (from "
                                    + address + ")"));
                }
            } catch (RuntimeException e) {
                result.complete(refusedNow(clientId, "the password check failed: " + e));
            } finally {
                done(clientId, address, known);
            }
        };
        try {
            pool.execute(new Check(known, sequence.incrementAndGet(), work));
        } catch (RejectedExecutionException e) { // the pool was closed
            done(clientId, address, known);
            return busy("the password checks are stopped");
        }
        return result;
    }

    /** A password check as the pool orders them: the known lane first, then by arrival. */
    private record Check(boolean known, long sequence, Runnable work) implements Runnable, Comparable<Check> {
        @Override
        public void run() {
            work.run();
        }

        @Override
        public int compareTo(Check o) {
            return known != o.known ? (known ? -1 : 1) : Long.compare(sequence, o.sequence);
        }
    }

    /**
     * @param knownLane counted in the lane of client ids seen recently; @param refusal why it was not counted, or null
     */
    private record Admission(boolean knownLane, @Nullable String refusal) {}

    /** Counts a check as waiting, if there is room for it: in the known lane if it may, else in the strangers'. */
    private synchronized Admission admit(String clientId, String address, boolean known) {
        if (known && waitingKnown < queue && waitingKnownIds.add(clientId)) {
            waitingKnown++;
            return new Admission(true, null);
        }
        String key = addressKey(address);
        int fromAddress = waitingPerAddress.getOrDefault(key, 0);
        if (fromAddress >= queuePerAddress) {
            refusedBusyAddress.incrementAndGet();
            return new Admission(
                    false,
                    fromAddress + " password checks of CONNECTs from " + key
                            + " are waiting already (auth.queuePerAddress)");
        }
        if (waitingStrangers >= queue) {
            refusedBusy.incrementAndGet();
            return new Admission(
                    false, waitingStrangers + " password checks are waiting already (auth.queue; a login flood?)");
        }
        waitingStrangers++;
        waitingPerAddress.merge(key, 1, Integer::sum);
        return new Admission(false, null);
    }

    /** A check counted by {@link #admit} ended. @param knownLane the lane it was counted in */
    private synchronized void done(String clientId, String address, boolean knownLane) {
        if (knownLane) {
            waitingKnownIds.remove(clientId);
            waitingKnown--;
            return;
        }
        waitingStrangers--;
        waitingPerAddress.computeIfPresent(addressKey(address), (k, n) -> n <= 1 ? null : n - 1);
    }

    private CompletableFuture<Result> busy(String why) {
        log.warn("busy", "", "refused a CONNECT with CONNACK 3: " + why);
        return done(Result.BUSY);
    }

    /** The address a client's checks are counted by: an IPv4 address as it is, an IPv6 address by its /64. */
    static String addressKey(String address) {
        if (!address.contains(":")) {
            return address;
        }
        try {
            byte[] bytes = InetAddress.getByName(address).getAddress(); // a literal: no DNS lookup
            return bytes.length == 16 ? HexFormat.of().formatHex(bytes, 0, 8) + "::/64" : address;
        } catch (UnknownHostException e) {
            return address;
        }
    }

    /** Whether Moquette, which asks again on a network thread, should let these credentials in: no PBKDF2 here. */
    public boolean alreadyAccepted(String clientId, String username, byte[] password) {
        if (passwords.isEmpty()) {
            return anonymous;
        }
        return passwords.get().isVerified(clientId, username, password);
    }

    /** CONNECTs refused because {@code auth.queue} checks were waiting. */
    public long refusedBusy() {
        return refusedBusy.get();
    }

    /** CONNECTs refused because {@code auth.queuePerAddress} checks of their address were waiting or running. */
    public long refusedBusyAddress() {
        return refusedBusyAddress.get();
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
        log.info(
                "credentials",
                clientId,
                "refused CONNECT of " + RefusalLog.quote(clientId) + " with CONNACK 4: " + why);
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
