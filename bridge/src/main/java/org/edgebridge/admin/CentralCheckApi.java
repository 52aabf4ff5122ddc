package org.edgebridge.admin;

import io.javalin.http.Context;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.edgebridge.commission.CheckReport;

/**
 * {@code POST /api/check-central}: the commissioning check ({@code edge-bridge check-central}) run by the bridge with
 * its own settings, for the page's button; the answer is the check's JSON report. One check at a time (each step
 * has a deadline, so one ends within a minute or two); another request meanwhile gets {@code 409}.
 */
final class CentralCheckApi {
    private final Supplier<CheckReport> check;
    private final AtomicBoolean running = new AtomicBoolean();

    CentralCheckApi(Supplier<CheckReport> check) {
        this.check = check;
    }

    void run(Context ctx) {
        if (!running.compareAndSet(false, true)) {
            throw new OutboxApi.ApiError(
                    409, "check_running", "a check of central is running already: wait for its answer");
        }
        try {
            ctx.status(200).contentType("application/json").result(check.get().json());
        } finally {
            running.set(false);
        }
    }
}
