package org.edgebridge.budget;

import java.util.HashMap;
import java.util.Map;

/**
 * Bytes to and from central over a period (a UTC day or month), as persisted in {@code data-budget.json}.
 *
 * @param period {@code 2026-12-06} or {@code 2026-12}
 * @param bodyBytes request bodies before compression; {@code wireBodyBytes} as sent
 * @param devices payload bytes sent per device (month only): at most {@code maxDevices} devices by name, the rest
 *     together under one more entry
 */
public record Usage(
        String period,
        long sentBytes,
        long receivedBytes,
        long bodyBytes,
        long wireBodyBytes,
        Map<String, Long> devices) {
    static Usage empty(String period) {
        return new Usage(period, 0, 0, 0, 0, Map.of());
    }

    public long totalBytes() {
        return sentBytes + receivedBytes;
    }

    Usage plus(
            long sent,
            long received,
            long body,
            long wireBody,
            Map<String, Long> deviceBytes,
            int maxDevices,
            String other) {
        Map<String, Long> d = new HashMap<>(devices);
        deviceBytes.forEach((device, n) -> {
            int named = d.size() - (d.containsKey(other) ? 1 : 0);
            String key = d.containsKey(device) || device.equals(other) || named < maxDevices ? device : other;
            d.merge(key, n, Long::sum);
        });
        return new Usage(
                period,
                sentBytes + sent,
                receivedBytes + received,
                bodyBytes + body,
                wireBodyBytes + wireBody,
                Map.copyOf(d));
    }
}
