/**
 * What a power cut leaves of the data dir: {@link org.edgebridge.storage.Fsync} makes a file's data, or a
 * directory's entries (a new file, a rename), durable; {@link org.edgebridge.storage.FsyncProbe} measures at start how
 * long the data dir takes to do that, and {@link org.edgebridge.storage.StorageHonesty} judges the figure (a write
 * cache that lies, or storage too slow for the intake rate the site expects; docs/install.md).
 *
 * <p>Threads: none; called at start and where a file is written.
 */
@NullMarked
package org.edgebridge.storage;

import org.jspecify.annotations.NullMarked;
