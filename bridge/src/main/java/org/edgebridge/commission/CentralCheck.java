package org.edgebridge.commission;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.edgebridge.forward.ForwarderSettings;
import org.edgebridge.forward.auth.ClientCertificate;

/**
 * Whether this box can reach central with these settings ({@code ingest.*}), step by step: {@code dns}, {@code tcp},
 * {@code proxy} (the CONNECT tunnel), {@code tls} (central's chain against {@code ingest.caFile}, its name),
 * {@code client-certificate} (readable, not expired, taken by central), {@code oauth2-token}, {@code request} (the
 * check request of docs/protocol.md §2.1, which applies nothing) and {@code clock} (the skew against central's
 * {@code Date}). A step that is not needed with these settings, or cannot be tried because an earlier one failed, is
 * skipped and says why. Each step is bounded by {@code ingest.timeout}, at most {@link #MAX_STEP}.
 */
public final class CentralCheck {
    /** The longest any one step waits. */
    public static final Duration MAX_STEP = Duration.ofSeconds(10);

    private final ForwarderSettings settings;
    private final Clock clock;

    public CentralCheck(ForwarderSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
    }

    public CheckReport run() {
        Instant at = clock.instant();
        Deadline deadline = new Deadline(
                settings.requests().timeout().compareTo(MAX_STEP) < 0
                        ? settings.requests().timeout()
                        : MAX_STEP);
        List<CheckStep> steps = new ArrayList<>();
        Optional<ClientCertificate> certificate = Optional.empty();
        if (settings.credentials().clientCertificate().isPresent()) {
            try {
                certificate = Optional.of(ClientCertificate.load(
                        settings.credentials().clientCertificate().get().certFile(),
                        settings.credentials().clientCertificate().get().keyFile()));
            } catch (IllegalArgumentException e) {
                certificate = Optional.empty(); // the client-certificate step says so
            }
        }
        Optional<String> blockedBy = new ConnectionSteps(settings, deadline, clock).run(steps, certificate);
        for (String later : List.of("tcp", "proxy", "tls", "client-certificate")) {
            if (steps.stream().noneMatch(s -> s.step().equals(later))) {
                steps.add(CheckStep.skip(later, "not tried: the " + blockedBy.orElse("previous") + " step failed"));
            }
        }
        RequestSteps http = new RequestSteps(settings, deadline, clock, certificate);
        CheckStep token = http.token();
        steps.add(token);
        steps.add(http.request(blockedBy, token.failed()));
        steps.add(http.clock());
        return new CheckReport(
                settings.central().url().toString(),
                settings.central().proxy().map(Object::toString).orElse("direct"),
                at,
                List.copyOf(steps));
    }
}
