package org.edgebridge.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The bridge's data directory on a disk of its own that the test can fill: a size-limited tmpfs mounted at
 * {@code data.dir} in a private mount namespace (an unprivileged user namespace: {@code unshare -rm}), with the
 * broker store ({@code data.dir/broker}) bind-mounted from the ordinary disk, so that only the outbox is hit.
 *
 * <p>A holder process ({@code sleep}) keeps the namespace, and with it the tmpfs, alive across bridge kills
 * and restarts; each bridge is started inside it with {@link #launcher()} ({@code nsenter}, which execs the
 * JVM). {@link #fill(int)} shrinks the tmpfs to what it holds (plus a headroom), so writes soon fail with ENOSPC,
 * a real "disk full"; {@link #restore()} gives the room back. A remount read-only is not possible while the
 * outbox has files open for writing (EBUSY), so "full" is the disk fault played here.
 */
final class OutboxDisk implements AutoCloseable {
    private static final String SIZE = "4g";

    private final Path dataDir;
    private final Process holder;

    private OutboxDisk(Path dataDir, Process holder) {
        this.dataDir = dataDir;
        this.holder = holder;
    }

    /** Fails the test when this machine cannot make the disk ({@link #supported()}): it must not pass untried. */
    static void requireSupported() {
        if (!supported()) {
            throw new IllegalStateException(
                    "this test needs 'unshare -rm' (an unprivileged mount namespace with a tmpfs)");
        }
    }

    /** Whether this machine lets an unprivileged process make a mount namespace with a tmpfs. */
    static boolean supported() {
        try {
            Process p = new ProcessBuilder("unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /tmp")
                    .redirectErrorStream(true)
                    .start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Mounts the tmpfs at {@code dataDir} (with {@code brokerStore} at {@code dataDir/broker}) in a new namespace. */
    static OutboxDisk mount(Path dataDir, Path brokerStore) throws IOException, InterruptedException {
        Files.createDirectories(brokerStore);
        return mount(
                dataDir,
                "mkdir '" + dataDir + "/broker'; mount --bind '" + brokerStore + "' '" + dataDir + "/broker'; ");
    }

    /** Mounts the tmpfs at {@code dataDir} with all it holds, the broker store too, as on a box with one disk. */
    static OutboxDisk mountWholeDataDir(Path dataDir) throws IOException, InterruptedException {
        return mount(dataDir, "");
    }

    private static OutboxDisk mount(Path dataDir, String thenRun) throws IOException, InterruptedException {
        Files.createDirectories(dataDir);
        String script = "set -e; mount -t tmpfs -o size=" + SIZE + " edge-outbox '" + dataDir + "'; " + thenRun
                + "echo mounted; exec sleep 100000";
        Process holder = new ProcessBuilder("unshare", "-rm", "--propagation", "private", "sh", "-c", script)
                .redirectErrorStream(true)
                .start();
        BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (!"mounted".equals(line)) {
            holder.destroyForcibly();
            throw new IOException("could not mount a tmpfs for the outbox in a new mount namespace: " + line);
        }
        return new OutboxDisk(dataDir, holder);
    }

    /** The command prefix that runs a process inside the namespace, seeing the tmpfs. */
    List<String> launcher() {
        return List.of("nsenter", "-t", String.valueOf(holder.pid()), "-U", "-m", "--preserve-credentials");
    }

    /**
     * Leaves the outbox's file system {@code headroomKiB} of free space (0: none): writes that need a new page
     * fail with ENOSPC.
     */
    void fill(int headroomKiB) throws IOException, InterruptedException {
        // the bridge may write between df and the remount, and a tmpfs refuses a size below what it holds (EINVAL,
        // "bad option"): then measure again. The remount's own check is what makes the size right, not the df.
        for (int attempt = 1; ; attempt++) {
            long usedKiB = Long.parseLong(
                    inside("df -k --output=used '" + dataDir + "' | tail -1").trim());
            try {
                inside("mount -o remount,size=" + (usedKiB + headroomKiB) + "k '" + dataDir + "'");
                return;
            } catch (IOException refused) {
                if (attempt == FILL_ATTEMPTS) {
                    throw refused;
                }
            }
        }
    }

    /** Tries of {@link #fill}: each a df and a remount, a few ms apart. */
    private static final int FILL_ATTEMPTS = 20;

    /** Gives the outbox its room back. */
    void restore() throws IOException, InterruptedException {
        inside("mount -o remount,size=" + SIZE + " '" + dataDir + "'");
    }

    private String inside(String shell) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(launcher());
        command.addAll(List.of("sh", "-c", shell));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("'" + shell + "' in the outbox namespace failed: " + out);
        }
        return out;
    }

    /** Ends the holder; the tmpfs and what it held go with the namespace. */
    @Override
    public void close() throws InterruptedException {
        holder.destroyForcibly();
        holder.waitFor(10, TimeUnit.SECONDS);
    }
}
