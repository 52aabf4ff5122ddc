package org.edgebridge.commission;

import static org.edgebridge.commission.StepHelpers.port;
import static org.edgebridge.commission.StepHelpers.rootMessage;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.URI;

/** What a failed TLS handshake with central means, in the words of the {@code tls} step, and what to fix. */
final class TlsFailures {
    private TlsFailures() {}

    /**
     * @param url central ({@code ingest.url})
     * @param trust what central's chain was checked against ({@code ingest.caFile} or the JVM's trust store)
     */
    static CheckStep of(IOException e, URI url, String trust, Deadline deadline, long millis) {
        String all = causes(e);
        String host = url.getHost();
        if (all.contains("CertificateExpiredException") || all.contains("validity check failed")) {
            return CheckStep.fail(
                    "tls",
                    "central's certificate has expired (" + rootMessage(e) + ")",
                    "central's team must "
                            + "renew its certificate; if it has not expired, the box's clock is wrong (see the clock "
                            + "step)",
                    millis);
        }
        if (all.contains("No subject alternative") || all.contains("No name matching")) {
            return CheckStep.fail(
                    "tls",
                    "central's certificate is not for " + host + " (" + rootMessage(e) + ")",
                    "use in ingest.url the name central's certificate is issued for, or have it reissued for " + host,
                    millis);
        }
        if (all.contains("PKIX path")
                || all.contains("CertPathBuilderException")
                || all.contains("CertPathValidatorException")) {
            return CheckStep.fail(
                    "tls",
                    "central's certificate chain is not signed by a CA in " + trust + " (" + rootMessage(e) + ")",
                    "set ingest.caFile to the PEM file of the CA that signed central's certificate "
                            + "(ask central's team for it)",
                    millis);
        }
        if (all.contains("Unsupported or unrecognized SSL message")) {
            return CheckStep.fail(
                    "tls",
                    "central at " + host + ":" + port(url) + " does not speak TLS",
                    "use central's https port in ingest.url, or http:// (not with ingest.client=blocking)",
                    millis);
        }
        if (e instanceof SocketTimeoutException) {
            return CheckStep.fail(
                    "tls",
                    "no TLS answer from central within " + deadline.millis() + " ms",
                    "check that ingest.url's port is central's https port",
                    millis);
        }
        if (all.contains("handshake_failure") || all.contains("protocol_version")) {
            return CheckStep.fail(
                    "tls",
                    "central and this box have no TLS version or cipher in common (" + rootMessage(e) + ")",
                    "ask central's team which TLS versions it takes (the bridge offers TLS 1.2 and 1.3)",
                    millis);
        }
        return CheckStep.fail(
                "tls",
                "the TLS handshake with central failed: " + rootMessage(e),
                "check ingest.url, ingest.caFile and ingest.certFile",
                millis);
    }

    private static String causes(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getClass().getName())
                    .append(": ")
                    .append(t.getMessage())
                    .append('\n');
        }
        return all.toString();
    }
}
