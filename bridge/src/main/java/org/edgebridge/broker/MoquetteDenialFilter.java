package org.edgebridge.broker;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;

/**
 * Moquette 0.17 habit answered: one ERROR or WARN line per denied PUBLISH or SUBSCRIBE, without limit. Proven by {@code
 * LogLinesIT} (a denied publish and a denied subscribe are one bridge line each, nothing from Moquette). Kept in this
 * package, not in {@code broker.moquette}: sites name it in their own logback.xml, and it imports nothing of Moquette.
 *
 * <p>Drops Moquette 0.17's own lines about ACL denials: an ERROR from {@code PostOffice} for every denied PUBLISH
 * and a WARN from {@code Authorizator} for every denied SUBSCRIBE, unlimited. The bridge logs each denial itself,
 * once per client id and interval, with what to do ({@code Broker}). Installed by logback.xml as a turboFilter.
 */
public final class MoquetteDenialFilter extends TurboFilter {
    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (format == null || logger == null) {
            return FilterReply.NEUTRAL;
        }
        String name = logger.getName();
        if (name.equals("io.moquette.broker.PostOffice") && format.contains("is not authorized to publish")) {
            return FilterReply.DENY;
        }
        if (name.equals("io.moquette.broker.Authorizator") && format.contains("does not have read permissions")) {
            return FilterReply.DENY;
        }
        return FilterReply.NEUTRAL;
    }
}
