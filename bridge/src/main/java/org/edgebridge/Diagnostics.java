package org.edgebridge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.edgebridge.config.BridgeConfig;
import org.edgebridge.outbox.CommandState;
import org.edgebridge.outbox.Outbox;
import org.edgebridge.outbox.OutboxCounts;

/**
 * What a support ticket needs, gathered without the bridge running (or while it runs: SQLite lets a reader in):
 * version, configuration with secrets masked, data directory sizes and free disk, outbox counts, schema version
 * and the latest problems.
 */
final class Diagnostics {
    private Diagnostics() {}

    static Map<String, Object> collect(BridgeConfig config, String version) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("version", version);
        out.put("java", System.getProperty("java.version"));
        out.put("config", config.masked());
        Path data = config.dataDir();
        Map<String, Object> disk = new LinkedHashMap<>();
        disk.put("dataDir", data.toAbsolutePath().toString());
        disk.put("outboxBytes", size(config.outboxFile()) + size(Path.of(config.outboxFile() + "-wal")));
        disk.put("brokerStoreBytes", size(config.broker().sessions().storeDir()));
        try {
            disk.put(
                    "freeBytes",
                    Files.getFileStore(
                                    Files.exists(data)
                                            ? data
                                            : data.toAbsolutePath().getParent())
                            .getUsableSpace());
        } catch (IOException e) {
            disk.put("freeBytes", "unknown: " + e.getMessage());
        }
        out.put("disk", disk);
        if (!Files.exists(config.outboxFile())) {
            out.put("outbox", "no outbox yet at " + config.outboxFile());
            return out;
        }
        Outbox outbox = Outbox.open(config.outboxFile(), Clock.systemUTC());
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("schemaVersion", outbox.reads().schemaVersion());
        OutboxCounts counts = outbox.reads().counts();
        Map<String, Long> perState = new LinkedHashMap<>();
        for (CommandState s : CommandState.values()) {
            perState.put(s.dbName(), counts.count(s));
        }
        o.put("counts", perState);
        o.put(
                "oldestOpenReceivedAt",
                counts.oldestPendingReceivedAt().map(Object::toString).orElse(null));
        o.put("devices", outbox.reads().devices().size());
        o.put("recentProblems", outbox.reads().recentProblems(20));
        out.put("outbox", o);
        return out;
    }

    private static long size(Path p) {
        if (!Files.exists(p)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(p)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(f -> {
                        try {
                            return Files.size(f);
                        } catch (IOException e) {
                            return 0;
                        }
                    })
                    .sum();
        } catch (IOException e) {
            return -1;
        }
    }
}
