package org.edgebridge.trace;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.jspecify.annotations.Nullable;

/**
 * A JDK Flight Recorder event: an outbox row reached one {@link CommandTrace.Step} of its path. Off in every recording
 * unless enabled by name ({@value #NAME}); with no recording, creating one costs nothing the JIT keeps.
 */
@Name(CommandStepEvent.NAME)
@Label("Command step")
@Category("Edge bridge")
@Description("An outbox row reached a step of its path from intake to its final receipt")
@Enabled(false)
@StackTrace(false)
public final class CommandStepEvent extends Event {
    public static final String NAME = "edgebridge.CommandStep";

    @Label("Row id")
    long rowId;

    @Label("Command id")
    @Description("the device's commandId: on the two stored steps only")
    @Nullable
    String commandId;

    @Label("Step")
    String step = "";

    @Label("Nano time")
    @Description("System.nanoTime() at the step, comparable with the same JVM's other nanoTime readings")
    long nanoTime;

    CommandStepEvent() {}

    CommandStepEvent(long rowId, @Nullable String commandId, CommandTrace.Step step, long nanoTime) {
        this.rowId = rowId;
        this.commandId = commandId;
        this.step = step.name();
        this.nanoTime = nanoTime;
    }
}
