#!/bin/sh
# The part of the official postgres image's docker-entrypoint.sh that compose.yaml
# relies on: an empty PGDATA is made with POSTGRES_USER (its password
# POSTGRES_PASSWORD) and the database POSTGRES_DB, and others connect with that
# password over the network.
set -eu
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=${POSTGRES_USER}}"
if [ ! -s "${PGDATA}/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "postgres stand-in: POSTGRES_PASSWORD must be set" >&2
        exit 1
    fi
    pwfile="$(mktemp)"
    printf '%s\n' "${POSTGRES_PASSWORD}" >"${pwfile}"
    initdb -D "${PGDATA}" -U "${POSTGRES_USER}" --pwfile="${pwfile}" -E UTF8 \
        --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "${pwfile}"
    echo "host all all all scram-sha-256" >>"${PGDATA}/pg_hba.conf"
    if [ "${POSTGRES_DB}" != postgres ]; then
        echo "CREATE DATABASE \"${POSTGRES_DB}\" OWNER \"${POSTGRES_USER}\"" \
            | postgres --single -D "${PGDATA}" postgres >/dev/null
    fi
    echo "postgres stand-in: made ${PGDATA} with user ${POSTGRES_USER}, database ${POSTGRES_DB}"
fi
exec postgres -D "${PGDATA}" -c listen_addresses='*' "$@"
