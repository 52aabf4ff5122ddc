package org.edgebridge.broker;

/**
 * The broker's one inbound port: each PUBLISH a device makes on one of its own command topics, handed to the
 * bridge. The broker calls it on one thread, in the order the PUBLISHes arrived, after the broker has answered
 * the PUBLISH to the device (custody is the {@code stored} receipt, not the PUBACK).
 */
@FunctionalInterface
public interface InboundCommands {
    /** Must not block for long: every device's next command waits for it. */
    void accept(InboundPublish publish);
}
