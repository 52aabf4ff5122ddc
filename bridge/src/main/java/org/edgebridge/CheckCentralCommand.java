package org.edgebridge;

import java.time.Clock;
import java.util.concurrent.Callable;
import org.edgebridge.commission.CentralCheck;
import org.edgebridge.commission.CheckReport;
import org.edgebridge.config.BridgeConfig;
import org.edgebridge.config.ConfigLoader;
import org.edgebridge.lifecycle.ExitCodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code check-central}: whether this box reaches central with these settings, step by step
 * ({@link CentralCheck}); exit code 0 only when no step failed, 1 when one did, 2 for a configuration error.
 */
@Command(
        name = "check-central",
        mixinStandardHelpOptions = true,
        description = "Check, step by step, that this box reaches "
                + "central with these settings (DNS, TCP, the proxy's CONNECT, TLS, the client certificate, the "
                + "OAuth2 token, one request that applies nothing, the clock): pass or fail with the reason and the "
                + "fix. Exit code 0 only when every step passed. Run it before devices go live (docs/install.md).")
final class CheckCentralCommand implements Callable<Integer> {
    @CommandLine.Mixin
    Main.ConfigOptions options = new Main.ConfigOptions();

    @Option(names = "--json", description = "print the report as JSON (for scripts)")
    boolean json;

    @CommandLine.Spec
    @SuppressWarnings("NullAway.Init") // picocli injects it before call()
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        BridgeConfig config = ConfigLoader.load(options.file, options.sets);
        // the report says all there is to say; a log line on stdout would break --json for scripts
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME))
                .setLevel(ch.qos.logback.classic.Level.OFF);
        CheckReport report = new CentralCheck(config.forwarder(), Clock.systemUTC()).run();
        spec.commandLine().getOut().print(json ? report.json() + "\n" : report.text());
        spec.commandLine().getOut().flush();
        return report.ok() ? ExitCodes.OK : ExitCodes.FAILED;
    }
}
