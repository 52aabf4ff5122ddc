/**
 * TLS material from files: PEM certificate chains and PKCS#8 keys ({@link org.edgebridge.tls.PemFiles}), whether a
 * secret's file is its owner's alone ({@link org.edgebridge.tls.OwnerOnlyFiles}), and the development CA and server
 * certificate of {@code demo} ({@link org.edgebridge.tls.DevCertificates}, not for production).
 *
 * <p>Threads: none. Pure apart from reading (and, for {@code demo}, writing) files.
 *
 * <p>Guarantees: each problem is an {@link IllegalArgumentException} that says what is wrong with the file.
 */
@NullMarked
package org.edgebridge.tls;

import org.jspecify.annotations.NullMarked;
