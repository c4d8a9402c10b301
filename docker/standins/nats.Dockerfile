# Stand-in for nats:2.x (docker/ci.sh): Debian's nats-server. Debian installs it as
# /usr/sbin/nats-server (the official image: /nats-server); compose.yaml gives only
# the arguments (`command`), so the entrypoint is the binary itself, as there.
ARG BASE
FROM ${BASE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nats-server \
    && rm -rf /var/lib/apt/lists/*
USER nobody
EXPOSE 4222
ENTRYPOINT ["/usr/sbin/nats-server"]
