package org.edgebridge.lifecycle;

/**
 * Every exit code of the {@code edge-bridge} process, in one place (README, "Run it on a site", lists them for
 * supervisors). A SIGTERM stop ends with the JVM's own 143, not with one of these.
 */
public final class ExitCodes {
    /** Done, or stopped cleanly. */
    public static final int OK = 0;
    /**
     * The command failed (start-up failed, a device file could not be written, …); one {@code error:} line says why.
     */
    public static final int FAILED = 1;
    /** The configuration is wrong (or the command line asks for something that moved): one line per problem. */
    public static final int CONFIG = 2;
    /**
     * A worker thread died, or an {@link Error} ended any thread ({@code worker.Workers}, {@code worker.FatalErrors}):
     * the supervisor should start the bridge again.
     */
    public static final int WORKER_DIED = 3;

    private ExitCodes() {}
}
