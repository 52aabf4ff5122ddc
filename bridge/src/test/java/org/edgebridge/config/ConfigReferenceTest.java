package org.edgebridge.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ConfigReferenceTest {
    private static final Path REPO = Path.of("..");
    private static final int MOST_CHARACTERS = 140;
    /** "issue 42", "issues 40, 44", "issue #13": the history of a key belongs in git, not in its meaning. */
    private static final Pattern ISSUE = Pattern.compile("(?i)\\bissues? #?\\d");
    /** A date such as 2026-12-06. */
    private static final Pattern DATE = Pattern.compile("\\b\\d{4}-\\d{2}-\\d{2}\\b");

    @Test
    void docs_configuration_md_is_what_the_code_generates() throws Exception {
        Path doc = Path.of("../docs/configuration.md");
        assertThat(Files.readString(doc))
                .as("docs/configuration.md is stale: regenerate it with "
                        + "'java -jar bridge/target/edge-bridge.jar config-reference > docs/configuration.md'")
                .isEqualTo(ConfigReference.markdownReference());
    }

    @Test
    void every_documented_key_is_accepted_with_its_default_written_out() {
        List<String> sets = ConfigKeys.ALL.stream()
                .filter(k -> k.defaultValue() != null)
                .map(k -> k.name() + "=" + k.defaultValue())
                .toList();
        BridgeConfig config = ConfigLoader.load(null, sets);
        assertThat(config.effective()).hasSize(sets.size());
    }

    @Test
    void secrets_are_masked_in_what_is_shown() {
        BridgeConfig config =
                ConfigLoader.load(null, List.of("admin.token=admin-secret", "ingest.token=central-secret"));
        Map<String, String> masked = config.masked();
        assertThat(masked).containsEntry("admin.token", "****").containsEntry("ingest.token", "****");
        assertThat(masked.values()).doesNotContain("admin-secret", "central-secret");
    }

    @Test
    void every_description_is_one_short_line_without_history() {
        List<String> broken = new ArrayList<>();
        for (ConfigKey<?> k : ConfigKeys.ALL) {
            String doc = k.doc();
            if (doc.isBlank() || doc.contains("\n") || doc.contains("\r")) {
                broken.add(k.name() + ": not one line");
            }
            if (doc.length() > MOST_CHARACTERS) {
                broken.add(k.name() + ": " + doc.length() + " characters, at most " + MOST_CHARACTERS);
            }
            if (ISSUE.matcher(doc).find() || DATE.matcher(doc).find()) {
                broken.add(k.name() + ": names an issue or a date: " + doc);
            }
            if (doc.contains("docs/") || doc.contains(".md")) {
                broken.add(k.name() + ": points at a doc in its text; give it a link with .see(...)");
            }
        }
        assertThat(broken)
                .as("descriptions (the rest goes in the linked section)")
                .isEmpty();
    }

    @Test
    void every_link_names_a_doc_file_and_one_of_its_headings() {
        List<String> broken = new ArrayList<>();
        Map<Path, Set<String>> anchors = new HashMap<>();
        for (ConfigKey<?> k : ConfigKeys.ALL) {
            String link = k.link();
            if (link == null) {
                continue;
            }
            int hash = link.indexOf('#');
            if (!link.startsWith("docs/") || link.contains("..") || hash < 0) {
                broken.add(k.name() + ": " + link + " is not docs/<file>.md#<heading>");
                continue;
            }
            Path file = REPO.resolve(link.substring(0, hash)).normalize();
            if (!Files.isRegularFile(file)) {
                broken.add(k.name() + ": " + link + ": no such file");
                continue;
            }
            String anchor = link.substring(hash + 1);
            if (!anchors.computeIfAbsent(file, ConfigReferenceTest::anchors).contains(anchor)) {
                broken.add(k.name() + ": " + link + ": no such heading in " + file.getFileName());
            }
        }
        assertThat(broken).isEmpty();
        assertThat(ConfigKeys.ALL.stream()
                        .filter(k -> k.link() == null)
                        .map(ConfigKey::name)
                        .toList())
                .as("keys without a link: the section that explains a key's details is where a site looks them up")
                .isEmpty();
    }

    @Test
    void anchors_are_made_as_github_makes_them() {
        assertThat(anchor("## Blame: when an event is parked or rejected, and when never"))
                .isEqualTo("blame-when-an-event-is-parked-or-rejected-and-when-never");
        assertThat(anchor("### 1.4 The command payload")).isEqualTo("14-the-command-payload");
        assertThat(anchor("## The site's proxy")).isEqualTo("the-sites-proxy");
        assertThat(anchor("## What we set, and why (`MoquetteProperties`)"))
                .isEqualTo("what-we-set-and-why-moquetteproperties");
        assertThat(anchor("## PUBACK before the command is stored (`PubackAfterCommit`, `CommandInterceptor`)"))
                .isEqualTo("puback-before-the-command-is-stored-pubackaftercommit-commandinterceptor");
        assertThat(anchor("### Client certificate (mTLS)")).isEqualTo("client-certificate-mtls");
    }

    /** The anchors of a Markdown file's headings (not of "# comment" lines inside code blocks), duplicates numbered. */
    private static Set<String> anchors(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Set<String> found = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean code = false;
        for (String line : lines) {
            if (line.startsWith("```")) {
                code = !code;
            } else if (!code && line.matches("#{1,6} .*")) {
                String a = anchor(line);
                int n = seen.merge(a, 1, Integer::sum);
                found.add(n == 1 ? a : a + "-" + (n - 1));
            }
        }
        return found;
    }

    /** GitHub's rule: the heading's text in lower case, punctuation dropped, each space a hyphen. */
    static String anchor(String heading) {
        String text = heading.replaceFirst("^#{1,6} ", "").strip().toLowerCase(Locale.ROOT);
        return text.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }
}
