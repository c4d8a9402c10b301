# Stand-in for postgres:15.x-bookworm (docker/ci.sh): Debian's postgresql-15, with an
# entrypoint that does what compose.yaml relies on in the official one: POSTGRES_USER,
# POSTGRES_PASSWORD and POSTGRES_DB on first start in an empty PGDATA, connections
# from the network with a password, pg_isready on PATH.
ARG BASE
FROM ${BASE}
# No cluster of Debian's own (postgresql-common would make one in /var/lib/postgresql/15).
RUN mkdir -p /etc/postgresql-common \
    && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.conf \
    && apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        -o Dpkg::Options::=--force-confold postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
    && chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql \
    && chmod 700 /var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data
USER postgres
VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
