package org.edgebridge.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.edgebridge.broker.moquette.RawBroker;
import org.edgebridge.config.ConfigLoader;

/**
 * The bare broker of B7 as its own process, started like {@link BridgeChild} (the service unit's JVM flags), so that
 * B7's ratio compares two processes alike: before, the bare broker ran in the bench's JVM beside the load generator,
 * its JIT and GC, and the ratio swung by half between runs (docs/BENCHMARKS.md). The child runs this class from the
 * bench's own class path; it stops on SIGTERM.
 */
final class RawBrokerChild implements AutoCloseable {
    private final Process process;
    private final int port;

    /** @param sets the config keys of the bare broker (data.dir, mqtt.port, ...), as {@code --set} takes them */
    RawBrokerChild(Path log, int port, List<String> sets) throws IOException {
        this.port = port;
        List<String> args =
                new ArrayList<>(List.of("-cp", System.getProperty("java.class.path"), RawBrokerChild.class.getName()));
        args.addAll(sets);
        process = BridgeChild.startJvm(BridgeChild.SITE_JVM_FLAGS, args, log);
    }

    /** The child: the bare broker with these config keys until SIGTERM. */
    public static void main(String[] sets) throws InterruptedException {
        RawBroker broker = new RawBroker(ConfigLoader.load(null, List.of(sets)).broker());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            broker.close();
                            stopped.countDown();
                        },
                        "raw-broker-stop"));
        System.out.println("raw broker listening");
        stopped.await();
    }

    /** Waits until the broker accepts TCP connections on its port. */
    RawBrokerChild awaitListening(Duration atMost) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the bare broker's process exited with " + process.exitValue());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
                return this;
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the bare broker did not listen within " + atMost);
    }

    /** CPU time the process used so far, user and system, in seconds (Linux: /proc/PID/stat). */
    double cpuSeconds() throws IOException {
        return ThreadCpu.cpuSeconds(Files.readString(Path.of("/proc", String.valueOf(process.pid()), "stat")));
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
