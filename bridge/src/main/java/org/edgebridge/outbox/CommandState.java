package org.edgebridge.outbox;

import java.util.Locale;

/** Where a command is in the outbox. The last three are final: they have a final receipt. */
public enum CommandState {
    PENDING,
    INFLIGHT,
    PARKED,
    ACCEPTED,
    DUPLICATE,
    REJECTED;

    public boolean isFinal() {
        return this == ACCEPTED || this == DUPLICATE || this == REJECTED;
    }

    /** The name stored in the database and shown in the API: lower case. */
    public String dbName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static CommandState fromDb(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }
}
