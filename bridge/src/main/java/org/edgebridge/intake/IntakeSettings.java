package org.edgebridge.intake;

/**
 * @param maxPayloadBytes largest command payload accepted
 * @param maxBatch most commands committed in one outbox transaction
 * @param queueCapacity commands waiting for the writer before intake answers retry_later
 */
public record IntakeSettings(int maxPayloadBytes, int maxBatch, int queueCapacity) {}
