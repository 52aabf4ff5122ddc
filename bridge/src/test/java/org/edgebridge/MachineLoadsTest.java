package org.edgebridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Failsafe leaves the {@link LoadsTheMachine} tests out of its queue by name (bridge/pom.xml), because {@link
 * MachineLoadsIT} runs them: a test with the annotation that the pom does not leave out would run twice, at the same
 * time as the chain; one the pom leaves out without the annotation would not run at all.
 */
class MachineLoadsTest {
    private static final Pattern EXCLUDE = Pattern.compile("<exclude>\\*\\*/([\\w/]+\\.java)</exclude>");

    @Test
    void the_pom_leaves_out_exactly_the_tests_that_load_the_machine() throws IOException {
        Set<String> excluded = new TreeSet<>();
        Matcher m = EXCLUDE.matcher(Files.readString(Path.of("pom.xml")));
        while (m.find()) {
            excluded.add(m.group(1));
        }
        Set<String> annotated = new TreeSet<>();
        Path root = Path.of("src", "test", "java", "org", "edgebridge");
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith("IT.java")).toList()) {
                List<String> lines = Files.readAllLines(f);
                if (lines.stream().anyMatch(l -> l.strip().equals("@LoadsTheMachine"))) {
                    annotated.add(root.relativize(f).toString().replace('\\', '/'));
                }
            }
        }
        assertThat(annotated).as("@LoadsTheMachine tests").isNotEmpty();
        assertThat(excluded).as("failsafe's excludes in bridge/pom.xml").isEqualTo(annotated);
    }

    /** runOrder=alphabetical hands out MachineLoadsIT first only while no integration test's full name sorts before it. */
    @Test
    void the_chain_is_the_first_integration_test_by_name() throws IOException {
        Path root = Path.of("src", "test", "java");
        try (Stream<Path> files = Files.walk(root)) {
            String first = files.filter(p -> p.toString().endsWith("IT.java"))
                    .map(p -> root.relativize(p)
                            .toString()
                            .replace('\\', '/')
                            .replace('/', '.')
                            .replaceAll("\\.java$", ""))
                    .sorted()
                    .findFirst()
                    .orElseThrow();
            assertThat(first).isEqualTo(MachineLoadsIT.class.getName());
        }
    }
}
