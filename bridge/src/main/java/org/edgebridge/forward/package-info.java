/**
 * Forwarding: the outbox to central's HTTP ingest API in batches (docs/protocol.md §2), central's per-event receipts
 * committed, then handed to the devices. The facade is {@link org.edgebridge.forward.Forwarder}; an admin drives it
 * through {@link org.edgebridge.forward.ForwarderControl}.
 *
 * <p>Owns: the HTTP client to central ({@link org.edgebridge.forward.CentralClient}: the JDK's, or HttpURLConnection on
 * the forwarder's thread with {@code ingest.client=blocking}; its reply read to at most {@code ingest.maxReplyBytes}
 * and its whole exchange bounded by {@code ingest.timeout}), the Resilience4j
 * guards ({@link org.edgebridge.forward.CentralGuards}: a requests and an events rate limiter, a bulkhead, a circuit
 * breaker), the policy that decides when a request may go ({@link org.edgebridge.forward.ForwarderPolicy}, on the
 * injected clock), the isolation of an event that alone makes central fail ({@link
 * org.edgebridge.forward.Suspicions}: blame only with proof, docs/forwarding.md "Blame"), and the answers it could not
 * commit yet ({@code UnsettledAnswers}).
 * Central's replies are untrusted: every receipt is checked against its request ({@link
 * org.edgebridge.forward.ReceiptCheck}) and its texts capped ({@link org.edgebridge.forward.ReceiptCaps}).
 *
 * <p>Threads: {@code forwarder.maxConcurrentRequests} workers ({@code forwarder}, or {@code forwarder-N}), owned by
 * {@link org.edgebridge.forward.ForwarderLoop}, each running one synchronous {@link
 * org.edgebridge.forward.ForwardStep} after another (at most two requests each: at most 2 x {@code ingest.timeout});
 * the HTTP client's own threads (the JDK's: its selector and workers; blocking: one, {@code ingest-deadlines}).
 * Nothing else here blocks.
 *
 * <p>Guarantees: an event of a device goes into a request only when every earlier one of that device is final or in
 * the same request (§2.2); an event is final here only after central's final receipt for it is committed, and that
 * receipt is handed to its device only after the commit; whatever central answers or fails to answer, no event is
 * lost (it stays open, or is parked for an admin) and none is final twice. Depends on the outbox's ports and on
 * {@code receipt} for the hand-over, never on the broker.
 */
@NullMarked
package org.edgebridge.forward;

import org.jspecify.annotations.NullMarked;
