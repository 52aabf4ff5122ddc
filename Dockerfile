# A container for sites that run them. Build the jar first: mvn -B -q package -DskipTests
# Run: docker run -p 1883:1883 -p 8883:8883 -p 127.0.0.1:8080:8080 -v edge-data:/data \
#        -v /etc/edge-bridge:/etc/edge-bridge:ro edge-bridge run --config /etc/edge-bridge/bridge.yaml
# (not tested here: these machines have no Docker engine)
FROM eclipse-temurin:17-jre
RUN useradd --system --home-dir /data --shell /usr/sbin/nologin edge-bridge \
 && mkdir -p /data && chown edge-bridge /data
COPY bridge/target/edge-bridge.jar /opt/edge-bridge/edge-bridge.jar
USER edge-bridge
WORKDIR /data
ENV JAVA_OPTS="-Xms128m -Xmx512m -XX:+ExitOnOutOfMemoryError"
EXPOSE 1883 8883 8080
VOLUME ["/data"]
# admin.host must be 0.0.0.0 inside a container to be reachable; publish it on the host's loopback only.
ENTRYPOINT ["sh", "-c", "exec java $JAVA_OPTS -jar /opt/edge-bridge/edge-bridge.jar \"$@\" --set data.dir=/data --set admin.host=0.0.0.0", "--"]
CMD ["run"]
STOPSIGNAL SIGTERM
