/**
 * The reference central (docs/protocol.md §2, server side), run by {@code central-sim} and embedded by {@code demo}
 * and the tests: {@code POST /ingest} answers one receipt per event from an {@link org.edgebridge.central.Inbox}, and
 * {@code /sim/*} serves the inbox, statistics and fault injection ({@link org.edgebridge.central.Faults}).
 *
 * <p>It stands for a real central and shares nothing with the bridge (ArchitectureTest).
 *
 * <p>Threads: Jetty's pool, owned by Javalin; the inbox is synchronized.
 *
 * <p>Guarantees: the inbox is unique on (deviceId, eventId), a repeat is answered {@code duplicate} with the first
 * result; each payload is checked against its {@code payloadSha256}; a request body over {@code maxRequestBytes}, as
 * sent or inflated, is answered 413. In memory only.
 */
@NullMarked
package org.edgebridge.central;

import org.jspecify.annotations.NullMarked;
