# The edge bridge as a container image, built from Debian packages alone (no image registry needed).
#   docker/make-base-image.sh                     # once: debootstrap bookworm -> edge-bridge-base:bookworm
#   mvn -B -q package -DskipTests                 # the jar
#   docker build --network host -t edge-bridge .
# Run (docs/install.md, "Containers"):
#   docker run -d --name edge-bridge --network host --stop-timeout 30 -v edge-data:/data \
#     -v /etc/edge-bridge:/etc/edge-bridge:ro -e EDGE_BRIDGE_INGEST_TOKENFILE=/etc/edge-bridge/ingest.token \
#     -e EDGE_BRIDGE_ADMIN_TOKENFILE=/etc/edge-bridge/admin.token edge-bridge run --config /etc/edge-bridge/bridge.yaml
#   (the tokens from owner-only files, never in the YAML or the environment: docs/install.md)
# ContainerIT (bridge/src/test/java/org/edgebridge/it) builds and tests this image.
ARG BASE=edge-bridge-base:bookworm
FROM ${BASE}

# tini is PID 1: it forwards SIGTERM to the JVM and reaps zombies; curl is the HEALTHCHECK's client
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      openjdk-17-jre-headless tini curl ca-certificates \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb

# a fixed uid/gid, so that a bind-mounted data directory can be chown'ed to it on the host: chown 10001:10001 DIR
RUN groupadd --system --gid 10001 edge-bridge \
 && useradd --system --uid 10001 --gid 10001 --home-dir /data --shell /usr/sbin/nologin edge-bridge \
 && install -d -o edge-bridge -g edge-bridge -m 700 /data \
 && install -d -m 755 /etc/edge-bridge /opt/edge-bridge

COPY bridge/target/edge-bridge.jar /opt/edge-bridge/edge-bridge.jar

# Heap as a share of the container's memory limit (the JVM reads the cgroup limit), leaving the rest to
# Netty's direct buffers, metaspace and thread stacks; an OutOfMemoryError ends the process (the restart
# policy starts it again) instead of leaving a half-working bridge.
ENV JAVA_OPTS="-XX:InitialRAMPercentage=25 -XX:MaxRAMPercentage=50 -XX:+ExitOnOutOfMemoryError"
# Every configuration key can be set as EDGE_BRIDGE_<KEY> (dots as '_', capitals); these win over a
# --config file and yield to --set. The HEALTHCHECK reads EDGE_BRIDGE_ADMIN_PORT: set the admin port here,
# not in the file. admin.host 127.0.0.1: on the host's network (docs/install.md) the admin side stays on the
# box's loopback. To publish the port instead (-p 127.0.0.1:8080:8080), set EDGE_BRIDGE_ADMIN_HOST=0.0.0.0 and
# EDGE_BRIDGE_ADMIN_TOKEN: on an address that is not loopback every read but / and /health/* needs the token.
ENV EDGE_BRIDGE_DATA_DIR=/data \
    EDGE_BRIDGE_ADMIN_HOST=127.0.0.1 \
    EDGE_BRIDGE_ADMIN_PORT=8080

USER edge-bridge
WORKDIR /data
VOLUME ["/data"]
EXPOSE 1883 8883 8080

HEALTHCHECK --interval=5s --timeout=3s --start-period=60s --retries=3 \
  CMD curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:${EDGE_BRIDGE_ADMIN_PORT}/health/ready" || exit 1

# SIGTERM stops the bridge cleanly within shutdown.timeout (20 s): run with --stop-timeout 30 (docker's
# default of 10 s would SIGKILL it first). The exit code after SIGTERM is 143.
STOPSIGNAL SIGTERM
# umask 077: what the bridge creates in /data is its user's alone (it also makes /data 700 and its files 600 at start)
ENTRYPOINT ["/usr/bin/tini", "--", "sh", "-c", "umask 077 && exec java $JAVA_OPTS -jar /opt/edge-bridge/edge-bridge.jar \"$@\"", "edge-bridge"]
CMD ["run"]
