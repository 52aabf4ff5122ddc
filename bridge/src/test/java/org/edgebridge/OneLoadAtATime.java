package org.edgebridge;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Holds an exclusive lock on {@code target/loads-the-machine.lock} for the whole of a {@link LoadsTheMachine} test
 * class: an OS file lock, so that it holds across the test JVMs; the JVM that waits for it prints how long it waited.
 */
final class OneLoadAtATime implements BeforeAllCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(OneLoadAtATime.class);

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        Path file = Files.createDirectories(Path.of("target")).resolve("loads-the-machine.lock");
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        long from = System.nanoTime();
        FileLock lock;
        try {
            lock = channel.lock(); // blocks while a test of another JVM holds it
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        long waitedMillis = (System.nanoTime() - from) / 1_000_000;
        if (waitedMillis >= 1_000) {
            System.out.println(context.getDisplayName() + " waited " + waitedMillis / 1_000
                    + " s for another test that loads the machine");
        }
        context.getStore(NAMESPACE).put("lock", new Held(channel, lock));
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        Held held = context.getStore(NAMESPACE).remove("lock", Held.class);
        if (held != null) {
            held.release();
        }
    }

    private record Held(FileChannel channel, FileLock lock) {
        void release() throws IOException {
            try {
                lock.release();
            } finally {
                channel.close();
            }
        }
    }
}
