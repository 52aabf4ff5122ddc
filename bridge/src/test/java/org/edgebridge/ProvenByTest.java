package org.edgebridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every "Proven by" (or "Tested by") in the product's comments names tests that exist, in bridge/src/test or
 * bench/src/test: a pointer to a test that was renamed or never written is worse than none.
 */
class ProvenByTest {
    private static final Path MAIN = Path.of("src/main/java");
    private static final List<Path> TEST_TREES = List.of(Path.of("src/test/java"), Path.of("../bench/src/test/java"));
    /** "proven by" followed by a test's name, a link or "every": not "a device proven by its certificate". */
    private static final Pattern CLAIM = Pattern.compile("(?i:proven|tested) by (?=\\{@code|\\{@link|every|[A-Z])");
    /** A test class's name: ends in Test or IT (plural and possessive forms too). */
    private static final Pattern TEST_NAME = Pattern.compile("\\b([A-Z][A-Za-z0-9]*(?:Test|IT))(?:s|'s)?\\b");
    /** The claim runs to the end of its sentence. */
    private static final Pattern SENTENCE_END = Pattern.compile("\\.(\\s|$)|\\*/");

    @Test
    void everyProvenByNamesATestThatExists() throws IOException {
        Set<String> tests = testClassNames();
        assertThat(tests).as("test classes found").hasSizeGreaterThan(100);
        List<String> claims = new ArrayList<>();
        List<String> broken = new ArrayList<>();
        for (Path file : javaFiles(MAIN)) {
            String text = commentText(Files.readString(file));
            Matcher claim = CLAIM.matcher(text);
            while (claim.find()) {
                Matcher end = SENTENCE_END.matcher(text);
                int to = end.find(claim.end()) ? end.start() : text.length();
                String sentence = text.substring(claim.start(), to);
                claims.add(sentence);
                List<String> named = TEST_NAME
                        .matcher(sentence)
                        .results()
                        .map(r -> r.group(1))
                        .toList();
                if (named.isEmpty() && !sentence.contains("every")) {
                    broken.add(MAIN.relativize(file) + ": names no test: \"" + sentence + "\"");
                }
                named.stream()
                        .filter(n -> !tests.contains(n))
                        .forEach(n -> broken.add(MAIN.relativize(file) + ": " + n + " does not exist"));
            }
        }
        assertThat(claims).as("\"Proven by\" lines in bridge/src/main").hasSizeGreaterThan(10);
        assertThat(broken).isEmpty();
    }

    /** The file with the comment markers at line starts taken out, lines joined by spaces. */
    private static String commentText(String source) {
        return source.lines()
                .map(l -> l.strip().replaceFirst("^(/\\*\\*|\\*(?!/)|//)\\s?", ""))
                .collect(Collectors.joining(" "));
    }

    private static Set<String> testClassNames() throws IOException {
        Set<String> names = new HashSet<>();
        for (Path tree : TEST_TREES) {
            for (Path file : javaFiles(tree)) {
                names.add(file.getFileName().toString().replace(".java", ""));
            }
        }
        return names;
    }

    private static List<Path> javaFiles(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }
}
