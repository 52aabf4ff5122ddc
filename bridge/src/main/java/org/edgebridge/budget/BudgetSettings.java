package org.edgebridge.budget;

import java.nio.file.Path;
import java.util.Optional;

/**
 * @param dataDir where the month's figures are kept across restarts ({@code data-budget.json})
 * @param monthlyBytes {@code ingest.dataBudget}: bytes to and from central a calendar month (UTC), if set
 */
public record BudgetSettings(Path dataDir, Optional<Long> monthlyBytes) {}
