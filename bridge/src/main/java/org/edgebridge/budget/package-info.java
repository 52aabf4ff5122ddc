/**
 * The data budget for metered links ({@link org.edgebridge.budget.DataBudget}): the bytes to and from central per UTC
 * day and month (kept across restarts in {@code data.dir/data-budget.json}), the compression ratio, the devices that
 * use most, and the alarms at 80 % and 100 % of {@code ingest.dataBudget}. Past 100 % nothing is dropped or held back
 * (docs/install.md, "The data budget").
 *
 * <p>Threads: one daemon sampler of its own, {@code data-budget}, started and stopped by its owner (the admin side).
 * Bounded: at most {@link org.edgebridge.forward.WireBytes#MAX_DEVICES} devices a month, the rest counted together.
 */
@NullMarked
package org.edgebridge.budget;

import org.jspecify.annotations.NullMarked;
