# Stand-in for haproxy:2.6.x (docker/ci.sh): Debian's haproxy, run as the official image
# runs it: as the user haproxy, in the foreground (-db) with the master-worker (-W), on
# the configuration at /usr/local/etc/haproxy/haproxy.cfg, which compose.yaml mounts.
ARG BASE
FROM ${BASE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends haproxy \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /usr/local/etc/haproxy
USER haproxy
STOPSIGNAL SIGUSR1
ENTRYPOINT ["/usr/sbin/haproxy", "-W", "-db"]
CMD ["-f", "/usr/local/etc/haproxy/haproxy.cfg"]
