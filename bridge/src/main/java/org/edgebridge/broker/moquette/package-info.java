/**
 * The embedded Moquette 0.17 and every workaround it needs: the only package (with the shims in {@code
 * io.moquette.broker}) that touches Moquette, Netty or H2. {@link org.edgebridge.broker.moquette.MoquetteBroker} is the
 * {@code broker.BrokerEngine}; each other class opens with the 0.17 bug it answers and the test that proves it
 * (docs/moquette.md).
 *
 * <p>Threads: Moquette's session loops and its one interceptor thread; {@code mqtt-accept} and {@code mqtt-io-N}
 * (Netty, {@link org.edgebridge.broker.moquette.MqttListeners}); {@code broker-enforcer} (closes connections that
 * broke the ACL, restarts the broker when a session loop died); {@code broker-stop} (Moquette's stop, bounded).
 *
 * <p>Guarantees: the ACL and the authenticator never throw into a session loop; a broker store Moquette refuses is set
 * aside and the broker starts on an empty one; receipts go out in buffers that cannot be released under the H2 queue.
 */
@NullMarked
package org.edgebridge.broker.moquette;

import org.jspecify.annotations.NullMarked;
