package org.edgebridge.forward;

import java.util.Set;

/** What one request (with its splits) did: the events that became final, and whether its request failed. */
record Forwarded(Set<Long> finals, boolean failed) {}
