/**
 * The MQTT side of the bridge, free of Moquette: the facade {@link org.edgebridge.broker.Broker}, the ports
 * {@link org.edgebridge.broker.InboundCommands} (a device's command, out to the intake) and {@link
 * org.edgebridge.broker.DevicePublisher} (a receipt, in to a device), and the bridge's own device policy: logins
 * ({@link org.edgebridge.broker.DeviceLogin}, {@link org.edgebridge.broker.PasswordFile}), the device registry,
 * refusals and limits, the store-reset alarm.
 *
 * <p>The broker itself, Moquette 0.17 and every workaround it needs, is a {@link org.edgebridge.broker.BrokerEngine}
 * in {@code broker.moquette}, built by the factory the composition root passes to {@code Broker}; this package does
 * not depend on that one (docs/moquette.md).
 *
 * <p>Threads: {@code mqtt-auth-N} ({@link org.edgebridge.broker.DeviceLogin}, the PBKDF2 checks off the I/O threads);
 * the rest runs on the engine's threads.
 *
 * <p>Guarantees: a device acts only as itself (its own command topic, its own receipt topic); start-up fails loudly
 * if a configured listener does not accept connections.
 */
@NullMarked
package org.edgebridge.broker;

import org.jspecify.annotations.NullMarked;
