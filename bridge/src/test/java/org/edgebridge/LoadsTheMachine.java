package org.edgebridge;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An integration test that loads the machine (a fleet, a flood, kill -9 loops, a docker build, two bridges at once).
 * These run one after another in one JVM of the integration tests, {@link MachineLoadsIT}, while the other JVMs run
 * the rest (bridge/pom.xml). A test of this kind started some other way (say {@code -Dit.test=A,B}) still never runs at
 * the same time as another one: it holds a lock while it runs ({@link OneLoadAtATime}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(LoadsTheMachine.TAG)
@ExtendWith(OneLoadAtATime.class)
public @interface LoadsTheMachine {
    /** The JUnit tag: failsafe leaves these out of its queue, and {@link MachineLoadsIT} selects them. */
    String TAG = "loads-the-machine";
}
