package org.edgebridge.faults;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;
import org.edgebridge.it.BridgeProcess;

/**
 * The bridge process across its lives: each start is a new life, numbered from 1. Kills, clean stops and
 * anything else that must not overlap a restart (a full disk) run under one lock. A process that ended
 * without the suite ending it is counted as a death, and started again so the run can go on.
 */
final class BridgeLives implements AutoCloseable {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Supplier<BridgeProcess> factory;
    private final ReentrantLock lock = new ReentrantLock();
    private final Set<Integer> cleanLives = new HashSet<>();
    private final List<String> deaths = new ArrayList<>();
    private final List<Long> restartMillis = new ArrayList<>();
    private volatile BridgeProcess current;
    private volatile int life;

    BridgeLives(Supplier<BridgeProcess> factory) {
        this.factory = factory;
    }

    /** The current life's number; devices tag their CONNACKs with it. */
    int life() {
        return life;
    }

    void start() {
        lock.lock();
        try {
            life++;
            long t0 = System.nanoTime();
            BridgeProcess next = factory.get();
            try {
                current = next.start();
            } catch (RuntimeException e) {
                next.close(); // not ready in time: it must not stay around holding the ports
                throw e;
            }
            restartMillis.add((System.nanoTime() - t0) / 1_000_000);
        } finally {
            lock.unlock();
        }
    }

    /** kill -9, then a new life after {@code down}. */
    void kill9AndRestart(Duration down) throws InterruptedException {
        kill9AndRestart(() -> FaultTiming.hold(down)); // the bridge stays down this long: the fault's length
    }

    /** What happens while the bridge is down between a kill and its next life. */
    interface WhileDown {
        void run() throws InterruptedException;
    }

    /** kill -9 (returns once the process is gone), then {@code whileDown} (a power cut of its disk), then a new life. */
    void kill9AndRestart(WhileDown whileDown) throws InterruptedException {
        lock.lock();
        try {
            checkAlive();
            current.kill9();
            whileDown.run();
            start();
        } finally {
            lock.unlock();
        }
    }

    /**
     * SIGTERM, then kill -9 if the process has not ended within {@code grace} (a crash during the clean stop),
     * then a new life. @return whether the process ended on its own before the kill
     */
    boolean sigtermThenKill9AndRestart(Duration grace) throws InterruptedException {
        lock.lock();
        try {
            checkAlive();
            current.sigterm();
            boolean ended = current.awaitExit(grace);
            if (!ended) {
                current.kill9();
            }
            start();
            return ended;
        } finally {
            lock.unlock();
        }
    }

    /** SIGTERM, then a new life that devices should find their sessions in. @return the exit code */
    int stopAndRestart() throws InterruptedException {
        lock.lock();
        try {
            checkAlive();
            int code = current.stop();
            cleanLives.add(life + 1);
            start();
            return code;
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code action} with no kill or restart in between. */
    <T> T exclusively(Callable<T> action) throws Exception {
        lock.lock();
        try {
            return action.call();
        } finally {
            lock.unlock();
        }
    }

    /** Whether the process is still up; if it died on its own, that is recorded and a new life started. */
    boolean checkAlive() {
        lock.lock();
        try {
            if (current.isAlive()) {
                return true;
            }
            deaths.add("life " + life + " ended on its own with exit code " + current.exitValue());
            start();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** {@code GET /api/status} of the current life, or null if it does not answer. */
    JsonNode status() {
        try {
            HttpResponse<String> r = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + current.adminPort() + "/api/status"))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** HTTP status of {@code GET /health/ready} of the current life (0 if it does not answer). */
    int ready() {
        try {
            return HTTP.send(
                            HttpRequest.newBuilder(
                                            URI.create("http://127.0.0.1:" + current.adminPort() + "/health/ready"))
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    Set<Integer> cleanLives() {
        return Set.copyOf(cleanLives);
    }

    List<String> deaths() {
        return List.copyOf(deaths);
    }

    List<Long> restartMillis() {
        return List.copyOf(restartMillis);
    }

    /** Stops the last life with SIGTERM. @return its exit code */
    int stop() throws InterruptedException {
        lock.lock();
        try {
            checkAlive();
            return current.stop();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        if (current != null) {
            current.close();
        }
    }

    /**
     * Waits until every command of {@code fleet} is final, failing at once if this bridge died on its own.
     *
     * @return false when {@code limit} passed first
     */
    boolean awaitAllFinal(DeviceFleet fleet, Duration limit) {
        try {
            await().atMost(limit).pollInterval(Duration.ofMillis(500)).until(() -> {
                checkAlive();
                return fleet.allFinal();
            });
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }
}
