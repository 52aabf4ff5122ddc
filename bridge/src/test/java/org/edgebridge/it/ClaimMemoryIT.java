package org.edgebridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.edgebridge.central.CentralSim;
import org.edgebridge.outbox.OutboxFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #14, "memory is bounded in bytes, not in rows": the claim reads payloads only for what fits the request's
 * byte budget. A real outbox file with 300 pending commands of 250 KB of one device (75 MB), and the real jar in a
 * child JVM with a 64 MiB heap: a claim that read the payloads of every row it looked at (up to maxEvents) ran out of
 * memory; one that reads sizes first sends them all, four per request.
 */
class ClaimMemoryIT {
    private static final int COMMANDS = 300;

    @TempDir
    Path dir;

    @Test
    void a_backlog_of_large_commands_is_sent_by_a_bridge_whose_heap_is_smaller_than_the_backlog() throws Exception {
        Path data = dir.resolve("data");
        try (OutboxFixture fixture = OutboxFixture.at(data.resolve("outbox.db"))) {
            fixture.pending("dev-big", "BIG-", COMMANDS, 250_000);
        }
        try (CentralSim central = TestSite.central(Optional.empty(), 16L * 1024 * 1024);
                BridgeProcess bridge = new BridgeProcess(
                                BridgeProcess.logFile("claim-memory"),
                                List.of("-Xmx64m"),
                                "data.dir=" + data,
                                "mqtt.host=127.0.0.1",
                                "mqtt.port=any",
                                "auth.anonymous=true",
                                "ingest.url=http://127.0.0.1:" + central.port() + "/ingest")
                        .start()) {
            await().atMost(Duration.ofSeconds(120))
                    .until(() -> central.inbox().size() == COMMANDS || !bridge.isAlive());
            assertThat(bridge.isAlive())
                    .as("bridge alive (log: target/it-logs/claim-memory-*)")
                    .isTrue();
            assertThat(central.inbox().size()).isEqualTo(COMMANDS);
            assertThat(central.requestLog())
                    .allSatisfy(r -> assertThat(r.events()).isLessThanOrEqualTo(4));
            assertThat(bridge.log()).doesNotContain("OutOfMemoryError");
        }
    }
}
