/**
 * The commissioning check against central ({@code edge-bridge check-central}, {@code POST /api/check-central}): one
 * step per layer between this box and central with these settings (DNS, TCP, the proxy's CONNECT, TLS, the client
 * certificate, the OAuth2 token, one authenticated request that applies nothing, the clock's skew), each passed or
 * failed with the reason and the fix in plain words ({@link org.edgebridge.commission.CentralCheck}).
 *
 * <p>Threads: the caller's, and one daemon thread per name lookup (the JDK's lookup has no deadline of its own).
 * Every step has a deadline; nothing is shared with the running bridge but its settings.
 */
@NullMarked
package org.edgebridge.commission;

import org.jspecify.annotations.NullMarked;
