package org.edgebridge.outbox;

import java.nio.file.Path;
import java.time.Instant;
import org.edgebridge.TestClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A test of the outbox on a real SQLite file in a temp dir, opened before each test and closed after, on a clock the test moves. */
public abstract class OutboxOnFile {
    @TempDir
    protected Path dir;

    protected final TestClock clock;
    protected Outbox outbox;

    protected OutboxOnFile(Instant start) {
        this.clock = new TestClock(start);
    }

    @BeforeEach
    protected void open() {
        outbox = Outbox.open(dir.resolve("outbox.db"), clock);
    }

    @AfterEach
    protected void close() {
        outbox.close();
    }
}
