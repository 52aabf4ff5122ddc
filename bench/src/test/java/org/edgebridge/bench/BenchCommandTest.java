package org.edgebridge.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchCommandTest {
    private static String usage() {
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(new BenchCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setUsageHelpWidth(400); // the synopsis on one line: what is asserted is the labels, not the wrapping
        assertThat(cl.execute("--help")).isZero();
        return out.toString();
    }

    @Test
    void only_reads_as_one_comma_separated_list() {
        assertThat(usage())
                .startsWith("Usage: edge-bridge-bench")
                .contains("[--only=B0,B2,...]")
                .doesNotContain("[,")
                .doesNotContain("[--only=B0,B2,...]...");
    }

    @Test
    void an_unknown_figure_is_refused_before_anything_runs() {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new BenchCommand());
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute("--only", "B8")).isEqualTo(2);
    }
}
