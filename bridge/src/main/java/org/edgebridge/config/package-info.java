/**
 * The configuration: every key declared once ({@link org.edgebridge.config.ConfigKeys}, which also writes
 * docs/configuration.md), read from YAML, {@code EDGE_BRIDGE_*} environment variables and {@code --set} into one
 * immutable, validated {@link org.edgebridge.config.BridgeConfig} ({@link org.edgebridge.config.ConfigLoader}), and
 * the warnings {@code check-config} prints ({@link org.edgebridge.config.ConfigWarnings}).
 *
 * <p>Threads: none; it runs once, on the thread that starts the bridge. Token, secret and certificate files are read
 * then.
 *
 * <p>Guarantees: a configuration with any problem is refused whole, every problem named at once (key, value, what is
 * allowed): exit code 2. A key the bridge no longer reads ({@link org.edgebridge.config.RemovedKeys}) is not a
 * problem: the start logs a warning naming it.
 */
@NullMarked
package org.edgebridge.config;

import org.jspecify.annotations.NullMarked;
