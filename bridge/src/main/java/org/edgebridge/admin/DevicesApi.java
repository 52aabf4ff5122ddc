package org.edgebridge.admin;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.edgebridge.broker.BrokerView;
import org.edgebridge.broker.DeviceView;
import org.edgebridge.outbox.AdminOutbox;
import org.edgebridge.outbox.DeviceRow;
import org.jspecify.annotations.Nullable;

/** {@code GET /api/devices}: client ids seen by the broker since start or by the outbox ever. */
final class DevicesApi {
    private final AdminOutbox outbox;
    private final BrokerView broker;

    DevicesApi(AdminOutbox outbox, BrokerView broker) {
        this.outbox = outbox;
        this.broker = broker;
    }

    /** One device in the API. */
    record Device(
            String clientId,
            boolean connected,
            @Nullable Instant lastSeenAt,
            long pending,
            long lastSequence,
            long connects,
            long takeovers,
            long takeoversLastMinute,
            long deniedPublishes,
            long deniedSubscribes) {}

    List<Device> list() {
        Map<String, DeviceRow> rows =
                outbox.reads().devices().stream().collect(Collectors.toMap(DeviceRow::clientId, Function.identity()));
        Map<String, DeviceView> views =
                broker.devices().list().stream().collect(Collectors.toMap(DeviceView::clientId, Function.identity()));
        Set<String> connected = new HashSet<>(broker.connectedClientIds());
        Map<String, Device> out = new TreeMap<>();
        Set<String> ids = new TreeSet<>(rows.keySet());
        ids.addAll(views.keySet());
        for (String id : ids) {
            DeviceRow r = rows.get(id);
            DeviceView v = views.get(id);
            Instant lastSeen = latest(
                    r == null ? null : r.lastSeenAt(),
                    v == null ? null : v.lastSeenAt().orElse(null));
            out.put(
                    id,
                    new Device(
                            id,
                            connected.contains(id),
                            lastSeen,
                            r == null ? 0 : r.openCommands(),
                            r == null ? 0 : r.lastSequence(),
                            v == null ? 0 : v.connects(),
                            v == null ? 0 : v.takeovers(),
                            v == null ? 0 : v.takeoversLastMinute(),
                            v == null ? 0 : v.deniedPublishes(),
                            v == null ? 0 : v.deniedSubscribes()));
        }
        List<Device> list = new ArrayList<>(out.values());
        list.sort(Comparator.comparing(Device::clientId));
        return list;
    }

    private static @Nullable Instant latest(@Nullable Instant a, @Nullable Instant b) {
        if (a == null) {
            return b;
        }
        return b == null || a.isAfter(b) ? a : b;
    }
}
