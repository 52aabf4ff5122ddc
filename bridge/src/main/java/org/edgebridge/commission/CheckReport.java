package org.edgebridge.commission;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The outcome of {@link CentralCheck}: every step in order; {@link #ok()} only when none failed.
 *
 * @param url {@code ingest.url}
 * @param proxy {@code ingest.proxy}, or {@code direct}
 * @param at when the check started
 */
public record CheckReport(String url, String proxy, Instant at, List<CheckStep> steps) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public boolean ok() {
        return steps.stream().noneMatch(CheckStep::failed);
    }

    public long failures() {
        return steps.stream().filter(CheckStep::failed).count();
    }

    /** The report as a technician reads it: one line per step, the reason and the fix under a failed one. */
    public String text() {
        StringBuilder out = new StringBuilder("check-central: " + url + " ("
                + (proxy.equals("direct") ? "direct" : "through proxy " + proxy) + ")\n");
        for (CheckStep s : steps) {
            out.append(String.format(Locale.ROOT, "  %-4s  %-18s  %s%n", s.status(), s.step(), s.detail()));
            s.fix().ifPresent(fix -> out.append(String.format(Locale.ROOT, "  %-4s  %-18s  fix: %s%n", "", "", fix)));
        }
        out.append(
                ok()
                        ? "result: every step passed: this box can reach central with these settings\n"
                        : "result: " + failures() + " of " + steps.size() + " steps failed\n");
        return out.toString();
    }

    /**
     * The report as JSON for scripts: {@code
     * {"url","proxy","at","ok","steps":[{"step","status","detail","fix","millis"}]}}.
     */
    public String json() {
        try {
            var node = JSON.createObjectNode();
            node.put("url", url);
            node.put("proxy", proxy);
            node.put("at", at.toString());
            node.put("ok", ok());
            var array = node.putArray("steps");
            for (CheckStep s : steps) {
                var step = array.addObject();
                step.put("step", s.step());
                step.put("status", s.status().name().toLowerCase(Locale.ROOT));
                step.put("detail", s.detail());
                step.put("fix", s.fix().orElse(null));
                step.put("millis", s.millis());
            }
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
