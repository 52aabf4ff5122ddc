package org.edgebridge.outbox;

/**
 * How much of the outbox one device may hold: open commands (pending, in flight, parked) and their payload bytes
 * ({@code outbox.maxPendingPerDevice}, {@code outbox.maxPendingBytesPerDevice}). A device at either bound gets its new
 * commands refused ({@link StoreResult.DeviceFull}); other devices are not touched. A device with no open command
 * always has room for one, whatever its size.
 *
 * @param maxCommands open commands of one device
 * @param maxBytes their payload bytes
 */
public record DeviceShare(long maxCommands, long maxBytes) {
    /** No bound per device (the site's bounds still hold). */
    public static final DeviceShare UNBOUNDED = new DeviceShare(Long.MAX_VALUE, Long.MAX_VALUE);

    /** Whether a device holding {@code openCommands} of {@code openBytes} may store one more of {@code bytes}. */
    boolean hasRoom(long openCommands, long openBytes, long bytes) {
        return openCommands <= 0 || (openCommands < maxCommands && openBytes + bytes <= maxBytes);
    }
}
