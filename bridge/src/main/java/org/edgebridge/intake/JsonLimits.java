package org.edgebridge.intake;

/**
 * How complex a command payload's JSON may be (docs/protocol.md §1.4): nesting depth, and the characters of one
 * string and of one number. A payload over any of them is rejected {@code json_limit_exceeded}, so that nothing a
 * device sends can make a parser at central (or here) run deep or long.
 *
 * @param maxDepth deepest nesting of objects and arrays (the payload's own object is depth 1)
 * @param maxStringLength most characters in one string (a field name or a value)
 * @param maxNumberLength most characters in one number
 */
public record JsonLimits(int maxDepth, int maxStringLength, int maxNumberLength) {}
