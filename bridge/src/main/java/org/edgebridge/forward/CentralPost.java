package org.edgebridge.forward;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One request to central as either HTTP client sends it: the headers the bridge sets ({@code Content-Type},
 * {@code Idempotency-Key}, {@code Content-Encoding} with {@code ingest.compression}, {@code Authorization: Bearer})
 * and the body as it goes on the wire.
 */
record CentralPost(Map<String, String> headers, byte[] onTheWire) {
    /** The request for a body, counted as sent in {@code wire} (its line, these headers, the body before and after). */
    static CentralPost of(
            ForwarderSettings.Central central, String batchId, byte[] body, Optional<String> bearer, WireBytes wire) {
        byte[] onTheWire = central.compression().encode(body);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Idempotency-Key", batchId);
        central.compression().contentEncoding().ifPresent(encoding -> headers.put("Content-Encoding", encoding));
        bearer.ifPresent(token -> headers.put("Authorization", "Bearer " + token));
        Map<String, List<String>> lists = new LinkedHashMap<>();
        headers.forEach((name, value) -> lists.put(name, List.of(value)));
        wire.sent(
                ("POST " + central.url().getRawPath() + " HTTP/1.1\r\n").length() + WireBytes.headBytes(lists),
                body.length,
                onTheWire.length);
        return new CentralPost(Collections.unmodifiableMap(headers), onTheWire);
    }
}
