package org.edgebridge.outbox;

import java.time.Duration;

/**
 * @param retention how long final commands are kept (the dedup window for resent commands)
 * @param batch rows deleted per transaction
 * @param interval time between purge runs
 * @param deviceRetention how long a device with no command left is remembered after it was last heard of
 */
public record RetentionSettings(Duration retention, int batch, Duration interval, Duration deviceRetention) {}
