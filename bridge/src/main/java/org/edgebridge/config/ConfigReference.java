package org.edgebridge.config;

/** The configuration reference, docs/configuration.md, generated from {@link ConfigKeys} (a test keeps them equal). */
public final class ConfigReference {
    private ConfigReference() {}

    /** The reference as a Markdown table: what docs/configuration.md holds (a test keeps them equal). */
    public static String markdownReference() {
        StringBuilder out = new StringBuilder();
        out.append("# Configuration reference\n\n");
        out.append(
                "Generated from the code by `java -jar bridge/target/edge-bridge.jar config-reference`; a test fails "
                        + "when\n");
        out.append("this file and the code disagree. The commented example is `broker-config/bridge.yaml`. Every key "
                + "can be\n");
        out.append("set in the YAML file (nested or dotted), by an environment variable (`EDGE_BRIDGE_` and the key "
                + "with its\n");
        out.append(
                "dots as `_`, in capitals: `EDGE_BRIDGE_MQTT_PORT`, `EDGE_BRIDGE_TLS_CERTFILE`), which wins over the "
                        + "file,\n");
        out.append("or with `--set key=value`, which wins over both. Durations: `500ms`, `30s`,\n");
        out.append("`5m`, `2h`, `7d`. Sizes: bytes, or `256KiB`, `1MiB`, `1GiB`. A bad value stops start-up with exit "
                + "code 2\n");
        out.append("and one line per problem naming the key, the value and the rule. A text value (a token, a host, a "
                + "path)\n");
        out.append("that YAML would read as a number or a boolean (`0777` is 511, `1e3` is 1000.0, `yes` is true) is "
                + "refused:\n");
        out.append("quote it (`token: \"0777\"`). `check-config` and the log at start warn about an `admin.token` "
                + "shorter than\n");
        out.append("16 characters and an `ingest.token` sent over `http://` to a host other than loopback.\n\n");
        out.append("Ports: `mqtt.port`, `tls.port` and `admin.port` take `any` for any free port (`admin.port=0` means "
                + "the\n");
        out.append(
                "same; `mqtt.port=0` switches the plain listener off). The bridge then logs the ports it bound, in a "
                        + "line\n");
        out.append("`bound ports: mqtt=… tls=… admin=…` (`off` for a listener that is off).\n\n");
        out.append(
                "Each key's meaning is one line; the last column links the section of the docs that says the rest.\n\n");
        out.append("| key | default | allowed | meaning | more |\n| --- | --- | --- | --- | --- |\n");
        for (ConfigKey<?> k : ConfigKeys.ALL) {
            out.append("| `")
                    .append(k.name())
                    .append("` | ")
                    .append(k.defaultValue() == null ? "(unset)" : "`" + k.defaultValue() + "`")
                    .append(" | ")
                    .append(k.allowed().replace("|", "\\|"))
                    .append(" | ")
                    .append(k.doc().replace("|", "\\|"))
                    .append(" | ")
                    .append(more(k))
                    .append(" |\n");
        }
        return out.toString();
    }

    /**
     * The key's link as this file, in docs/, reaches it: {@code docs/forwarding.md#backoff} becomes {@code
     * [forwarding](forwarding.md#backoff)}; nothing for a key without one. Every link is under docs/ (a test checks
     * the file and the heading).
     */
    static String more(ConfigKey<?> k) {
        String link = k.link();
        if (link == null) {
            return "";
        }
        if (!link.startsWith(DOCS)) {
            throw new IllegalStateException(k.name() + ": its link must be a file under docs/, not " + link);
        }
        String target = link.substring(DOCS.length());
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String label = file.endsWith(".md") ? file.substring(0, file.length() - 3) : file;
        return "[" + label + "](" + target + ")";
    }

    private static final String DOCS = "docs/";
}
