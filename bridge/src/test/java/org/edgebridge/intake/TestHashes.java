package org.edgebridge.intake;

/** Gives tests of other packages the parser's hash function. */
public final class TestHashes {
    private TestHashes() {}

    public static String sha256(byte[] bytes) {
        return CommandParser.sha256(bytes);
    }
}
