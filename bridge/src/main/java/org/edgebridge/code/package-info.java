/**
 * The stable codes the bridge gives: {@link org.edgebridge.code.ReceiptCode} (in receipts to devices and on parked
 * commands, docs/protocol.md §1.5 and §2.4) and {@link org.edgebridge.code.AlarmCode} (on the status page and in
 * {@code /metrics}). Each code has its wire string here and nowhere else; {@code ReceiptCodeTest} checks the receipt
 * codes against docs/protocol.md.
 *
 * <p>Threads: none. Depends on nothing of the bridge: every part may use it.
 */
@NullMarked
package org.edgebridge.code;

import org.jspecify.annotations.NullMarked;
