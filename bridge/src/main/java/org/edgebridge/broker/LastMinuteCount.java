package org.edgebridge.broker;

import java.time.Instant;

/**
 * Events in the last minute, to the second, in a fixed 60 buckets: the same few hundred bytes however many events
 * come (a list of instants grew with every CONNECT). Not thread-safe: its owner guards it.
 */
final class LastMinuteCount {
    private static final int SECONDS = 60;

    private final long[] second = new long[SECONDS];
    private final int[] count = new int[SECONDS];

    void add(Instant now) {
        long s = now.getEpochSecond();
        int i = (int) Math.floorMod(s, SECONDS);
        if (second[i] != s) {
            second[i] = s;
            count[i] = 0;
        }
        count[i]++;
    }

    /** Events in the 60 seconds up to {@code now}. */
    long at(Instant now) {
        long from = now.getEpochSecond() - SECONDS + 1;
        long n = 0;
        for (int i = 0; i < SECONDS; i++) {
            if (second[i] >= from && second[i] <= now.getEpochSecond()) {
                n += count[i];
            }
        }
        return n;
    }
}
