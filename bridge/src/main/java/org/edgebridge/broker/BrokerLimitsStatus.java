package org.edgebridge.broker;

/**
 * How often the broker's bounds on what devices can grow have bitten since start (docs/configuration.md has the
 * settings).
 *
 * @param retainFlagsCleared PUBLISHes that came with retain=1 and were taken without it
 * @param retainedClearedAtStart retained messages found in the broker store at start and removed
 */
public record BrokerLimitsStatus(long retainFlagsCleared, long retainedClearedAtStart) {}
