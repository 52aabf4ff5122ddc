package org.edgebridge.broker;

import java.time.Instant;
import java.util.Optional;

/**
 * What the broker reports about itself for the admin API.
 *
 * @param storeResets stores set aside by this process because the broker could not start on them
 * @param limits how often the bounds on what devices can grow have bitten
 * @param loginsRefusedBusy CONNECTs refused (CONNACK 3) because {@code auth.queue} password checks were waiting
 * @param loginsRefusedBusyAddress the same because {@code auth.queuePerAddress} checks of their address were waiting
 * @param downBecause why the broker is down and waits to start again by itself (its store's disk is full), if it is
 * @param sessionsSyncedAt when the session store last had every commit synced to the disk: a session acknowledged
 *     before it survives a power cut (about every second while the broker runs)
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
        BrokerLimitsStatus limits,
        long loginsRefusedBusyAddress,
        Optional<String> downBecause,
        Optional<Instant> sessionsSyncedAt) {}
