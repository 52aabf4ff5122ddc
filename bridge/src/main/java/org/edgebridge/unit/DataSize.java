package org.edgebridge.unit;

/** An amount of bytes: a setting that is a size says so in its type, not only in its name. */
public record DataSize(long bytes) {
    public DataSize {
        if (bytes < 0) {
            throw new IllegalArgumentException("a size cannot be negative: " + bytes);
        }
    }

    public static DataSize ofBytes(long bytes) {
        return new DataSize(bytes);
    }

    /** The size as an int, for the APIs that take one; the settings that use this are bounded below 2 GiB. */
    public int intBytes() {
        return Math.toIntExact(bytes);
    }
}
