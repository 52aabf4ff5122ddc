package org.edgebridge;

import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.IncludeTags;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/**
 * The integration tests that load the machine ({@link LoadsTheMachine}), one after another, as one entry of failsafe's
 * queue: failsafe's runOrder (alphabetical, bridge/pom.xml) hands it out first, so that this chain, the longest part
 * of the suite, runs from the start in one JVM while the others take the light tests.
 */
@Suite
@SelectPackages("org.edgebridge")
@IncludeClassNamePatterns(".*IT")
@IncludeTags(LoadsTheMachine.TAG)
class MachineLoadsIT {}
