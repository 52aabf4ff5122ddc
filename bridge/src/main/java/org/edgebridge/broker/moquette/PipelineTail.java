package org.edgebridge.broker.moquette;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.edgebridge.worker.FatalErrors;

/**
 * Netty's own tail of a pipeline logs an exception that reached it and does nothing else, so an Error fired by a
 * handler after the {@link ConnectGate} (Moquette's, an SSL or codec handler firing late) left a connection, and
 * maybe the process, a zombie. The last handler of every MQTT connection: an Error (or an exception wrapping one)
 * halts the process ({@link FatalErrors}); any other exception closes the connection. Errors that Moquette's handler
 * catches and only logs are halted on by {@code worker.ErrorsInLibraryLogs}. Shared: it holds no state.
 */
@ChannelHandler.Sharable
final class PipelineTail extends ChannelInboundHandlerAdapter {
    static final PipelineTail INSTANCE = new PipelineTail();

    private PipelineTail() {}

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        FatalErrors.haltIfFatal(Thread.currentThread(), cause);
        ctx.close();
    }
}
