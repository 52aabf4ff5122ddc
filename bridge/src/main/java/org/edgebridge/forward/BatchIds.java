package org.edgebridge.forward;

import java.util.UUID;

/** Ids of requests and claims: the {@code batchId} central sees, and the history's batch of a claim. */
final class BatchIds {
    private BatchIds() {}

    static String next() {
        return UUID.randomUUID().toString();
    }
}
