package org.edgebridge.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.zip.GZIPInputStream;
import org.edgebridge.outbox.ClaimedEvent;
import org.junit.jupiter.api.Test;

/**
 * Bytes on the wire per event, with and without ingest.compression=gzip, for request bodies as the bridge writes
 * them ({@link IngestRequest#body}) from realistic work-order commands of 50 devices (random ids, times, positions,
 * free text). Prints the figures that docs/BENCHMARKS.md quotes.
 */
class CompressionWireSizeTest {
    private static final String[] ACTIONS = {"ARRIVE", "START", "PAUSE", "RESUME", "COMPLETE", "DEPART"};
    private static final String[] NOTES = {
        "",
        "gate code changed",
        "customer not on site, left card",
        "replaced filter cartridge and reset the controller",
        "needs second visit: part on order",
        "photos attached"
    };

    @Test
    void gzip_shrinks_realistic_batches_and_inflates_back_to_the_same_bytes() throws Exception {
        Random random = new Random(27);
        List<ClaimedEvent> events = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            events.add(event(random, i));
        }
        StringBuilder table = new StringBuilder("events/request | body bytes/event | gzip bytes/event | ratio\n");
        for (int perRequest : new int[] {1, 10, 100, 500}) {
            long plain = 0;
            long gzipped = 0;
            for (int from = 0; from < events.size(); from += perRequest) {
                byte[] body = IngestRequest.body(
                        "site-01",
                        UUID.randomUUID().toString(),
                        events.subList(from, Math.min(events.size(), from + perRequest)));
                byte[] wire = Compression.GZIP.encode(body);
                assertThat(new GZIPInputStream(new ByteArrayInputStream(wire)).readAllBytes())
                        .isEqualTo(body);
                assertThat(Compression.NONE.encode(body)).isSameAs(body);
                plain += body.length;
                gzipped += wire.length;
            }
            table.append(String.format(
                    "%d | %d | %d | %.2f%n",
                    perRequest, plain / events.size(), gzipped / events.size(), (double) gzipped / plain));
            if (perRequest >= 10) {
                assertThat(gzipped)
                        .as("gzip smaller at " + perRequest + " events per request")
                        .isLessThan(plain);
            }
        }
        System.out.println("[wire-size] ingest.compression, bytes per event:\n" + table);
    }

    private static ClaimedEvent event(Random random, int i) throws Exception {
        String device = String.format("terminal-%02d", random.nextInt(50));
        String commandId = UUID.randomUUID().toString();
        String action = ACTIONS[random.nextInt(ACTIONS.length)];
        Instant at = Instant.parse("2026-12-02T06:00:00Z").plusMillis(i * 1731L + random.nextInt(1000));
        String payload = "{\"commandId\":\"" + commandId + "\",\"workOrderId\":\"WO-20261202-"
                + (10000 + random.nextInt(90000))
                + "\",\"action\":\"" + action + "\",\"createdAt\":\"" + at + "\",\"technician\":\"T"
                + (100 + random.nextInt(900))
                + "\",\"position\":{\"lat\":" + String.format("%.6f", 48 + random.nextDouble()) + ",\"lon\":"
                + String.format("%.6f", 11 + random.nextDouble()) + ",\"accuracyM\":" + (3 + random.nextInt(40)) + "},"
                + "\"battery\":" + (20 + random.nextInt(80)) + ",\"note\":\"" + NOTES[random.nextInt(NOTES.length)]
                + "\"}";
        byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
        String sha =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        return new ClaimedEvent(
                i + 1,
                device,
                commandId,
                i + 1,
                "devices/" + device + "/commands/workorder/" + action.toLowerCase(java.util.Locale.ROOT),
                "workorder/" + action.toLowerCase(java.util.Locale.ROOT),
                bytes,
                sha,
                at.plusMillis(40),
                1,
                0,
                Optional.empty());
    }
}
