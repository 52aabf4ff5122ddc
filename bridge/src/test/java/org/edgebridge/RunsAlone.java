package org.edgebridge;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * An integration test that must have the machine to itself: it loads both cores (a fleet, a flood, a docker build) or
 * holds the bridge to a time bound that another test's load would break. Failsafe runs these one after another in an
 * execution of their own ({@code alone}, bridge/pom.xml), after the others ran two JVMs at a time.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("alone")
public @interface RunsAlone {}
