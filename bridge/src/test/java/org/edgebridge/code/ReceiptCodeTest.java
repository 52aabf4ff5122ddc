package org.edgebridge.code;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/protocol.md's code tables and {@link ReceiptCode} list the same codes, so that neither drifts. */
class ReceiptCodeTest {
    private static final Path PROTOCOL = Path.of("../docs/protocol.md");
    private static final Pattern SECTION = Pattern.compile("^### (\\d+\\.\\d+) ");
    private static final Pattern CODE_ROW = Pattern.compile("^\\| `([a-z0-9_]+)` \\|");

    /** The codes in the first column of every table headed {@code | code |}, with the section each is in. */
    private static Map<String, String> documentedCodes() throws IOException {
        Map<String, String> sectionOf = new LinkedHashMap<>();
        List<String> twice = new ArrayList<>();
        String section = "";
        boolean inCodeTable = false;
        for (String line : Files.readAllLines(PROTOCOL)) {
            Matcher heading = SECTION.matcher(line);
            if (heading.find()) {
                section = heading.group(1);
            }
            if (line.startsWith("| code |")) {
                inCodeTable = true;
                continue;
            }
            if (!line.startsWith("|")) {
                inCodeTable = false;
            }
            Matcher row = CODE_ROW.matcher(line);
            if (inCodeTable && row.find() && sectionOf.put(row.group(1), section) != null) {
                twice.add(row.group(1));
            }
        }
        assertThat(twice).as("codes in two tables of docs/protocol.md").isEmpty();
        return sectionOf;
    }

    @Test
    void theProtocolDocumentsEveryCodeAndNoOther() throws IOException {
        Set<String> documented = documentedCodes().keySet();
        List<String> inCode =
                Arrays.stream(ReceiptCode.values()).map(ReceiptCode::wire).toList();
        assertThat(documented)
                .as("the code tables of docs/protocol.md")
                .hasSizeGreaterThan(20)
                .containsExactlyInAnyOrderElementsOf(inCode);
    }

    @Test
    void eachCodeIsDocumentedWhereItsKindIs() throws IOException {
        Map<String, String> sectionOf = documentedCodes();
        for (ReceiptCode code : ReceiptCode.values()) {
            String expected = EnumSet.of(ReceiptCode.Kind.PARKED, ReceiptCode.Kind.REJECTED_AFTER_FAILURES)
                            .contains(code.kind())
                    ? "2.4"
                    : "1.5";
            assertThat(sectionOf.get(code.wire()))
                    .as("the section of docs/protocol.md that lists " + code)
                    .isEqualTo(expected);
        }
    }

    @Test
    void wireStringsAreDistinctAndLowerSnakeCase() {
        assertThat(Arrays.stream(ReceiptCode.values()).map(ReceiptCode::wire))
                .doesNotHaveDuplicates()
                .allMatch(w -> w.matches("[a-z][a-z0-9_]*"));
        assertThat(Arrays.stream(AlarmCode.values()).map(AlarmCode::wire))
                .doesNotHaveDuplicates()
                .allMatch(w -> w.matches("[a-z][a-z0-9_]*"));
    }
}
