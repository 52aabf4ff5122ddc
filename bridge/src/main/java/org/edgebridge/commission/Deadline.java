package org.edgebridge.commission;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The deadline of one step, and a name lookup bounded by it (the JDK's own lookup waits as long as the resolver). */
record Deadline(Duration each) {
    int millis() {
        return (int) Math.min(Integer.MAX_VALUE, each.toMillis());
    }

    /**
     * @throws UnknownHostException the name has no address
     * @throws TimeoutException no answer within the deadline (the lookup's daemon thread is left to end on its own)
     */
    InetAddress[] resolve(String host) throws UnknownHostException, TimeoutException {
        CompletableFuture<InetAddress[]> lookup = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try {
                        lookup.complete(InetAddress.getAllByName(host));
                    } catch (UnknownHostException | RuntimeException e) {
                        lookup.completeExceptionally(e);
                    }
                },
                "check-central-dns");
        t.setDaemon(true);
        t.start();
        try {
            return lookup.get(each.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownHostException u) {
                throw u;
            }
            UnknownHostException u = new UnknownHostException(host + ": " + e.getCause());
            u.initCause(e.getCause());
            throw u;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TimeoutException("interrupted");
        }
    }
}
