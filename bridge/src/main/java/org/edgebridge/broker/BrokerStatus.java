package org.edgebridge.broker;

/** What the broker reports about itself for the admin API. */
public record BrokerStatus(
        boolean running,
        String listeners,
        int connectedClients,
        long deniedPublishes,
        long deniedSubscribes,
        long protocolViolations,
        long restartsAfterLoopDeath,
        long loginsRefusedCredentials,
        long loginsRefusedThrottled,
        long loginsRefusedBusy,
        long willsReceived) {}
