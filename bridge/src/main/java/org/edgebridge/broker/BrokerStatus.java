package org.edgebridge.broker;

/**
 * What the broker reports about itself for the admin API.
 *
 * @param storeResets stores set aside by this process because the broker could not start on them
 * @param limits how often the bounds on what devices can grow have bitten
 */
public record BrokerStatus(
        boolean running,
        String listeners,
        int connectedClients,
        long deniedPublishes,
        long deniedSubscribes,
        long protocolViolations,
        long restartsAfterLoopDeath,
        long storeResets,
        long loginsRefusedCredentials,
        long loginsRefusedThrottled,
        long loginsRefusedBusy,
        long willsReceived,
        int waitingPublishes,
        int mostWaitingPublishes,
        long readPauses,
        BrokerLimitsStatus limits) {}
