/**
 * The process: {@code Main} reads the command line and the config and runs {@code Bridge}, the composition root,
 * which builds every feature package's parts with {@code new}, starts them in order and stops them in reverse
 * (docs/design.md). {@code DataDirLock} keeps a second bridge off the same data dir; {@code PrivateDataDir} keeps
 * the data dir and what is in it to the bridge's user; {@code Diagnostics} and {@code DeviceCommand} are the
 * command-line tools of docs/operations.md.
 *
 * <p>Threads: the main thread, which starts the bridge and then waits for its stop (a signal's shutdown hook).
 *
 * <p>Nullness: every package of the product is {@code @NullMarked}: a type without {@code @Nullable} holds no
 * null, and NullAway fails the build where the code says otherwise.
 */
@NullMarked
package org.edgebridge;

import org.jspecify.annotations.NullMarked;
