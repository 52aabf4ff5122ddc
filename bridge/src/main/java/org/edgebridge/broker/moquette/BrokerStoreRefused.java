package org.edgebridge.broker.moquette;

/**
 * Raised by {@link BrokerStoreRepair} and {@link MoquetteStart} (see there for the 0.17 bug) when the broker's
 * session store cannot be used as it is: the bridge sets it aside and starts with an empty one. */
final class BrokerStoreRefused extends RuntimeException {
    BrokerStoreRefused(String message) {
        super(message);
    }

    BrokerStoreRefused(String message, Throwable cause) {
        super(message, cause);
    }
}
