package org.edgebridge.forward.auth;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The client certificate the bridge presents to central ({@code ingest.certFile}, {@code ingest.keyFile}), and how long
 * before it expires the alarm {@code ingest_certificate_expiring} is raised ({@code ingest.certExpiryWarning}).
 */
public record ClientCertificateSettings(Path certFile, Path keyFile, Duration expiryWarning) {}
