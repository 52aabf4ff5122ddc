package org.edgebridge.broker;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;

/**
 * The bound on each device's receipts waiting in the broker's queue for it ({@code mqtt.maxQueuedReceipts} entries,
 * {@code mqtt.maxQueuedReceiptBytes} bytes). Moquette 0.17 queues every receipt past the 10 in flight, without
 * limit, in its store: a device that never reads grew it without end. A receipt past the bound is not
 * handed to the broker at all; it is not lost, because the outbox answers the device's resend with it. The same holds
 * for all devices together ({@code mqtt.maxQueuedReceiptsTotal}, {@code mqtt.maxQueuedReceiptBytesTotal}): many devices
 * that each stay under their own bound cannot fill the disk either.
 *
 * <p>The broker counts the receipts it has queued for a device, not their bytes, so this keeps the sizes of the
 * receipts it handed over, newest last: the queued ones are the newest among them (older ones have left the queue
 * for the device). Receipts queued before this process started count as {@code maxBytes / maxEntries} each. A
 * device's ledger is dropped once nothing is queued (as last seen) or on its way for it. Thread-safe: one lock for
 * all devices (each call is a few map and deque steps), so that a ledger dropped by {@link #arrived} on a session loop
 * cannot be the one another thread is admitting a receipt into.
 */
public final class ReceiptQueues {
    private final int maxEntries;
    private final long maxBytes;
    private final long maxTotalEntries;
    private final long maxTotalBytes;
    private final Map<String, Ledger> ledgers = new HashMap<>(); // guarded by this
    private long totalEntries; // guarded by this: the sum of every ledger's held()
    private long totalBytes; // guarded by this: the sum of every ledger's heldBytes()
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong droppedSiteFull = new AtomicLong();
    /** When the ledgers were last read again from the broker ({@link #refreshIfDue}); guarded by this. */
    private long refreshedAt = System.nanoTime() - REFRESH_NANOS;
    /** At most one {@link #refreshIfDue} a second: it reads every ledger's queue from the broker. */
    static final long REFRESH_NANOS = 1_000_000_000L;

    /** One device's receipts in the broker's hands: their sizes, newest last, and how many are still on their way. */
    private static final class Ledger {
        final ArrayDeque<Integer> sizes = new ArrayDeque<>();
        long bytes;
        int onTheirWay;
        int queued;
    }

    /** Per device only (a site bound as large as it can be). */
    public ReceiptQueues(int maxEntries, long maxBytes) {
        this(maxEntries, maxBytes, Long.MAX_VALUE, Long.MAX_VALUE);
    }

    /**
     * @param maxEntries receipts queued for one device
     * @param maxBytes their bytes
     * @param maxTotalEntries receipts queued for all devices together
     * @param maxTotalBytes their bytes
     */
    public ReceiptQueues(int maxEntries, long maxBytes, long maxTotalEntries, long maxTotalBytes) {
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
        this.maxTotalEntries = maxTotalEntries;
        this.maxTotalBytes = maxTotalBytes;
    }

    /**
     * Whether a receipt of {@code bytes} may go to the broker for this device; if so, it counts as on its way until
     * {@link #arrived} is called for it.
     *
     * @param queuedNow receipts the broker holds queued for this device now (by its own count)
     */
    public synchronized boolean admit(String clientId, int bytes, int queuedNow) {
        Ledger l = ledgers.computeIfAbsent(clientId, k -> new Ledger());
        withdraw(l);
        l.queued = Math.max(0, queuedNow);
        trim(l);
        int held = held(l);
        boolean deviceFull = held >= maxEntries || heldBytes(l) + bytes > maxBytes;
        boolean siteFull = !deviceFull
                && (totalEntries + held + 1 > maxTotalEntries || totalBytes + heldBytes(l) + bytes > maxTotalBytes);
        if (deviceFull || siteFull) {
            (deviceFull ? dropped : droppedSiteFull).incrementAndGet();
            if (held == 0) {
                ledgers.remove(clientId);
            } else {
                deposit(l);
            }
            return false;
        }
        l.sizes.addLast(bytes);
        l.bytes += bytes;
        l.onTheirWay++;
        deposit(l);
        return true;
    }

    /**
     * The broker has put an admitted receipt in its place (in flight or queued): it is no longer on its way.
     *
     * @param queuedNow receipts the broker holds queued for this device now
     */
    public synchronized void arrived(String clientId, int queuedNow) {
        Ledger l = ledgers.get(clientId);
        if (l == null) {
            return;
        }
        withdraw(l);
        l.onTheirWay = Math.max(0, l.onTheirWay - 1);
        l.queued = Math.max(0, queuedNow);
        trim(l);
        if (l.onTheirWay == 0 && l.queued == 0) {
            ledgers.remove(clientId);
        } else {
            deposit(l);
        }
    }

    /**
     * Reads the queue of every device that has a ledger again from the broker, at most once a second: a ledger is
     * otherwise brought up to date only by a receipt for its own device, so a device that read its queue (or whose
     * session went away: 0 queued) and got no receipt since kept counting toward the site's totals, which drifted up
     * until the site bound refused every device's receipts. Called before each receipt is admitted and
     * when the status is read.
     *
     * @param queuedNow receipts the broker holds queued for a device now (0 when it has no session)
     */
    public synchronized void refreshIfDue(ToIntFunction<String> queuedNow) {
        long now = System.nanoTime();
        if (now - refreshedAt < REFRESH_NANOS) {
            return;
        }
        refreshedAt = now;
        for (Iterator<Map.Entry<String, Ledger>> it = ledgers.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Ledger> e = it.next();
            Ledger l = e.getValue();
            withdraw(l);
            l.queued = Math.max(0, queuedNow.applyAsInt(e.getKey()));
            trim(l);
            if (held(l) == 0) {
                it.remove();
            } else {
                deposit(l);
            }
        }
    }

    private int held(Ledger l) {
        return l.queued + l.onTheirWay;
    }

    /**
     * The bytes of a device's receipts held: known sizes, and the average allowed size for the ones from before start.
     */
    private long heldBytes(Ledger l) {
        return l.bytes + Math.max(0, held(l) - l.sizes.size()) * (maxBytes / maxEntries);
    }

    /** Takes a ledger out of the site's totals before it changes. */
    private void withdraw(Ledger l) {
        totalEntries -= held(l);
        totalBytes -= heldBytes(l);
    }

    /** Puts a ledger (back) into the site's totals after it changed. */
    private void deposit(Ledger l) {
        totalEntries += held(l);
        totalBytes += heldBytes(l);
    }

    /** Keeps the sizes of the receipts still queued or on their way: the newest ones. */
    private static void trim(Ledger l) {
        while (!l.sizes.isEmpty() && l.sizes.size() > l.queued + l.onTheirWay) {
            l.bytes -= l.sizes.removeFirst();
        }
    }

    /** Receipts not handed to the broker because the device's queue was full, since start. */
    public long dropped() {
        return dropped.get();
    }

    /** Receipts not handed to the broker because the queues of all devices together were full, since start. */
    public long droppedSiteFull() {
        return droppedSiteFull.get();
    }

    /** Receipts queued or on their way for all devices, as last seen. */
    public synchronized long totalEntries() {
        return totalEntries;
    }

    /** Their bytes (receipts queued before start at the average allowed size). */
    public synchronized long totalBytes() {
        return totalBytes;
    }

    /** The most receipts queued for one device, as last seen. */
    public synchronized int mostQueued() {
        int most = 0;
        for (Ledger l : ledgers.values()) {
            most = Math.max(most, l.queued);
        }
        return most;
    }

    /** Devices with receipts queued or on their way. */
    public synchronized int devices() {
        return ledgers.size();
    }
}
