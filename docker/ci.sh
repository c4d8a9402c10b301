#!/usr/bin/env bash
# docker/ci.sh: the image and compose.yaml built and run for real (issue 31), as a
# teacher's `docker compose up` would, on a machine that cannot reach Docker Hub.
#
# On a fresh Debian bookworm machine (root, or sudo), it:
#  1. installs what is missing (docker.io, docker-compose, debootstrap, netcat), with
#     one `apt-get update`;
#  2. starts its own dockerd (data root, exec root and socket in one folder; no
#     iptables, no default bridge) and points DOCKER_HOST at it;
#  3. makes local stand-ins for the base images, tagged with the exact names that
#     docker/Dockerfile and docker/compose.yaml pin: Debian from debootstrap, Rust
#     from it plus this machine's rustup toolchain of the pinned version, PostgreSQL,
#     NATS and HAProxy from Debian's packages (docker/standins/);
#  4. builds the real docker/Dockerfile (its own `cargo build --release --locked`);
#  5. runs the class lab (service `arcade`) and the `cluster` profile and checks them as
#     a student and a teacher would, each check printing what it checks;
#  6. takes everything down (`down -v`), checks nothing is left, stops dockerd.
#
#   docker/ci.sh                       everything in a temporary folder, removed after
#   ARCADE_DOCKER_DIR=/srv/d docker/ci.sh
#                                      kept there: a rerun reuses the base images and
#                                      Docker's build cache
#   CI_DOCKER_CLUSTER=0                the class lab only
#   CI_DOCKER_PREPARE=1 ARCADE_DOCKER_DIR=/srv/d docker/ci.sh
#                                      steps 1 to 3 only, into that folder: .ci/run
#                                      makes the stand-ins there while cargo builds,
#                                      and runs the rest later on them
#   CI_DOCKER_REMOVE=1                 with ARCADE_DOCKER_DIR: the folder removed
#                                      after all the same
#
# Host ports used: 4000, 2222, 8080 (the lab), 4001, 2223, 8081-8083, 8404 (the cluster).
# The whole script is one block, read before it runs: an edit while it runs cannot
# change what it does.
{
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$(pwd)"
export LC_ALL=C

step() { echo "== docker: $*"; }
ok() { echo "ok: $*"; }
fail() {
    echo "FAILED: $*" >&2
    exit 1
}
now() { date +%s; }
START="$(now)"

# --- 1. what the machine needs ---------------------------------------------------------
# dockerd runs as root (CI runs as root; `CI_CONTAINER=0 .ci/run` skips this stage).
[ "$(id -u)" -eq 0 ] || fail "docker/ci.sh starts its own dockerd: run it as root"
missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v nc >/dev/null 2>&1 || missing+=(netcat-openbsd)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v readelf >/dev/null 2>&1 || missing+=(binutils)
command -v ssh-keyscan >/dev/null 2>&1 || missing+=(openssh-client)
if [ "${#missing[@]}" -gt 0 ]; then
    step "apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Debian's client (matching its dockerd) before any other on PATH.
DOCKER=docker
[ -x /usr/bin/docker ] && DOCKER=/usr/bin/docker
# Compose: Debian's docker-compose 1.29 first, `docker compose` (v2) when that is all.
if command -v docker-compose >/dev/null 2>&1; then
    COMPOSE=(docker-compose)
elif ${DOCKER} compose version >/dev/null 2>&1; then
    COMPOSE=("${DOCKER}" compose)
else
    fail "neither docker-compose nor docker compose is installed"
fi

# --- 2. our own dockerd ----------------------------------------------------------------
PREPARE="${CI_DOCKER_PREPARE:-0}"
if [ -n "${ARCADE_DOCKER_DIR:-}" ]; then
    WORK="${ARCADE_DOCKER_DIR}"
    KEEP=1
    [ "${CI_DOCKER_REMOVE:-0}" = 0 ] || KEEP=0
    mkdir -p "${WORK}"
elif [ "${PREPARE}" != 0 ]; then
    fail "CI_DOCKER_PREPARE=1 makes the stand-ins for a later run: give it ARCADE_DOCKER_DIR"
else
    WORK="$(mktemp -d /var/tmp/arcade-docker.XXXXXX)"
    KEEP=0
fi
WORK="$(cd "${WORK}" && pwd)"
PROJECT=arcadeci
COMPOSE_FILE="${REPO}/docker/compose.yaml"
DOCKERD_PID=""
SESSIONS="${WORK}/sessions"
rm -rf "${SESSIONS}"
mkdir -p "${SESSIONS}"

dc() { "${COMPOSE[@]}" -p "${PROJECT}" -f "${COMPOSE_FILE}" "$@"; }
dcc() { "${COMPOSE[@]}" -p "${PROJECT}" -f "${COMPOSE_FILE}" --profile cluster "$@"; }

# A player at a terminal: a connection (bash's /dev/tcp) whose lines are typed in and
# whose output `cat` collects in a file until the server closes it; read up to an
# expected text, with a deadline.
declare -A SESSION_FD SESSION_PID SESSION_SEEN
SAID=""
session_open() { # NAME PORT
    local name="$1" port="$2" fd
    exec {fd}<>"/dev/tcp/127.0.0.1/${port}" || fail "${name} could not connect to port ${port}"
    cat <&"${fd}" >"${SESSIONS}/${name}.out" &
    SESSION_PID[${name}]=$!
    SESSION_FD[${name}]="${fd}"
    SESSION_SEEN[${name}]=0
}
session_send() { # NAME LINE
    printf '%s\r\n' "$2" >&"${SESSION_FD[$1]}"
}
# Waits until the session has said TEXT (after what was read before); SAID is what it
# said up to and including TEXT.
session_expect() { # NAME TEXT [SECONDS]
    local name="$1" text="$2" deadline=$(($(now) + ${3:-30})) all rest
    while :; do
        all="$(tr -d '\000' <"${SESSIONS}/${name}.out"; echo .)"
        all="${all%.}"
        rest="${all:${SESSION_SEEN[${name}]}}"
        if [[ "${rest}" == *"${text}"* ]]; then
            SAID="${rest%%"${text}"*}${text}"
            SESSION_SEEN[${name}]=$((SESSION_SEEN[${name}] + ${#SAID}))
            return 0
        fi
        if [ "$(now)" -ge "${deadline}" ]; then
            fail "${name} waited for '${text}' in vain; it was told: $(printf '%q' "${rest}")"
        fi
        sleep 0.2
    done
}
# Waits until the server has closed the session's connection (its `cat` ended).
session_wait_closed() { # NAME [SECONDS]
    local name="$1" deadline=$(($(now) + ${2:-30}))
    while kill -0 "${SESSION_PID[${name}]}" 2>/dev/null; do
        [ "$(now)" -lt "${deadline}" ] || fail "${name}'s connection stayed open"
        sleep 0.2
    done
}
session_close() { # NAME
    local name="$1" fd
    [ -n "${SESSION_FD[${name}]:-}" ] || return 0
    fd="${SESSION_FD[${name}]}"
    exec {fd}>&-
    kill "${SESSION_PID[${name}]}" 2>/dev/null || true
    wait "${SESSION_PID[${name}]}" 2>/dev/null || true
    unset "SESSION_FD[${name}]" "SESSION_PID[${name}]"
}
sessions_close_all() {
    local name
    for name in "${!SESSION_FD[@]}"; do session_close "${name}"; done
}
# A registered player, logged in on a new session. $2 may be "new" (register).
player_login() { # NAME PORT PASSWORD
    session_open "$1" "$2"
    session_expect "$1" "> "
    session_send "$1" "name $1"
    session_expect "$1" "Password: "
    session_send "$1" "$3"
    session_expect "$1" "> "
    [[ "${SAID}" == *"You are now $1."* ]] || fail "$1 could not log in: $(printf '%q' "${SAID}")"
}
player_register() { # NAME PORT PASSWORD
    session_open "$1" "$2"
    session_expect "$1" "> "
    session_send "$1" "name $1"
    session_expect "$1" "> "
    [[ "${SAID}" == *"You are now $1."* ]] || fail "the name $1 was not free: $(printf '%q' "${SAID}")"
    session_send "$1" "register"
    session_expect "$1" "Choose a password: "
    session_send "$1" "$3"
    session_expect "$1" "Type it again: "
    session_send "$1" "$3"
    session_expect "$1" "> "
    [[ "${SAID}" == *"is registered"* ]] || fail "$1 was not registered: $(printf '%q' "${SAID}")"
}

cleanup() {
    local status=$?
    set +e
    trap - ERR
    if [ -n "${SERVICES_PID:-}" ]; then kill "${SERVICES_PID}" 2>/dev/null; fi
    sessions_close_all
    if [ -n "${DOCKERD_PID}" ] && kill -0 "${DOCKERD_PID}" 2>/dev/null; then
        if [ "${status}" -ne 0 ]; then
            echo "-- the containers' last log lines (docker-compose logs --tail 30):" >&2
            dcc logs --no-color --tail 30 >&2 2>/dev/null
        fi
        dcc down -v --remove-orphans >/dev/null 2>&1
        kill "${DOCKERD_PID}"
        for _ in $(seq 1 30); do
            kill -0 "${DOCKERD_PID}" 2>/dev/null || break
            sleep 1
        done
        kill -0 "${DOCKERD_PID}" 2>/dev/null && kill -9 "${DOCKERD_PID}"
        wait "${DOCKERD_PID}" 2>/dev/null
    fi
    if [ "${status}" -ne 0 ] && [ -f "${WORK}/dockerd.log" ]; then
        echo "-- dockerd's last log lines:" >&2
        tail -n 15 "${WORK}/dockerd.log" >&2
    fi
    if [ "${KEEP}" -eq 0 ]; then
        # Anything dockerd left mounted under the folder first, then the folder.
        grep -o " ${WORK}/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null
        rm -rf "${WORK}"
    fi
    if [ "${status}" -eq 0 ] && [ "${PREPARE}" != 0 ]; then
        echo "docker: the stand-ins made in $(($(now) - START)) s"
    elif [ "${status}" -eq 0 ]; then
        echo "docker: all checks passed in $(($(now) - START)) s"
    else
        echo "docker: FAILED" >&2
    fi
    exit "${status}"
}
trap cleanup EXIT
# A command that fails without a check of ours says which.
set -E
trap 'echo "FAILED: line ${LINENO}: ${BASH_COMMAND}" >&2' ERR
trap 'exit 130' INT TERM

step "dockerd in ${WORK}"
# Containers may not raise their open-file limit above dockerd's hard limit:
# compose.yaml's `ulimits` come from ARCADE_NOFILE and HAPROXY_NOFILE (defaults 65536
# and 131072), lowered here to what this machine allows.
hard="$(ulimit -Hn)"
if [ "${hard}" != unlimited ] && [ "${hard}" -lt 131072 ]; then
    export HAPROXY_NOFILE="${hard}"
    if [ "${hard}" -lt 65536 ]; then export ARCADE_NOFILE="${hard}"; fi
    echo "the open-file hard limit here is ${hard}: ARCADE_NOFILE=${ARCADE_NOFILE:-65536} HAPROXY_NOFILE=${HAPROXY_NOFILE}"
fi
mkdir -p "${WORK}/data" "${WORK}/exec"
dockerd --data-root "${WORK}/data" --exec-root "${WORK}/exec" \
    -H "unix://${WORK}/docker.sock" --pidfile "${WORK}/dockerd.pid" \
    --iptables=false --ip-forward=false --ip-masq=false --bridge=none \
    >"${WORK}/dockerd.log" 2>&1 &
DOCKERD_PID=$!
export DOCKER_HOST="unix://${WORK}/docker.sock"
for _ in $(seq 1 60); do
    ${DOCKER} version >/dev/null 2>&1 && break
    kill -0 "${DOCKERD_PID}" 2>/dev/null || fail "dockerd stopped at start: $(tail -5 "${WORK}/dockerd.log")"
    sleep 0.5
done
${DOCKER} version >/dev/null 2>&1 || fail "dockerd did not answer on ${DOCKER_HOST} in 30 s"
ok "dockerd $(${DOCKER} version -f '{{.Server.Version}}') on ${DOCKER_HOST}, storage $(${DOCKER} info -f '{{.Driver}}')"
# This dockerd is ours alone: whatever a run stopped half-way left in a kept folder
# goes, so that the checks of `down -v` below see only what this run made.
stale="$(${DOCKER} ps -aq)"
[ -z "${stale}" ] || ${DOCKER} rm -fv ${stale} >/dev/null
${DOCKER} volume prune -f >/dev/null
${DOCKER} network prune -f >/dev/null

# --- 3. stand-ins for the pinned base images -------------------------------------------
# The exact names, read from the files users build.
RUST_IMAGE="$(sed -n 's/^FROM \([^ ]*\) AS build$/\1/p' docker/Dockerfile)"
DEBIAN_IMAGE="$(awk '/^FROM /{image=$2} END{print image}' docker/Dockerfile)"
pinned() { sed -n "s/^ *image: \(${1}:[^ ]*\)$/\1/p" docker/compose.yaml | head -1; }
POSTGRES_IMAGE="$(pinned postgres)"
NATS_IMAGE="$(pinned nats)"
HAPROXY_IMAGE="$(pinned haproxy)"
for image in RUST_IMAGE DEBIAN_IMAGE POSTGRES_IMAGE NATS_IMAGE HAPROXY_IMAGE; do
    [ -n "${!image}" ] || fail "could not read ${image} from docker/Dockerfile or docker/compose.yaml"
done
RUST_VERSION="$(echo "${RUST_IMAGE}" | sed -n 's/^rust:\([0-9.]*\)-.*/\1/p')"
[ -n "${RUST_VERSION}" ] || fail "no Rust version in ${RUST_IMAGE}"
have_image() { ${DOCKER} image inspect "$1" >/dev/null 2>&1; }
timed() {
    local name="$1" began
    shift
    began="$(now)"
    "$@"
    echo "   (${name}: $(($(now) - began)) s)"
}

# The machine's Debian mirror (apt's sources), for debootstrap and apt-get inside.
sources="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null || true)"
MIRROR="$(echo "${sources}" | grep -oE 'https?://[^ ]*/debian/?( |$)' | head -1 | tr -d ' ')"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
SECURITY="$(echo "${sources}" | grep -oE 'https?://[^ ]*/debian-security/?( |$)' | head -1 | tr -d ' ')"
SECURITY="${SECURITY:-http://deb.debian.org/debian-security}"

make_debian() {
    local rootfs="${WORK}/rootfs"
    rm -rf "${rootfs}"
    debootstrap --variant=minbase bookworm "${rootfs}" "${MIRROR}" >"${WORK}/debootstrap.log" 2>&1 \
        || fail "debootstrap from ${MIRROR} failed: $(tail -5 "${WORK}/debootstrap.log")"
    # As the official image: bookworm, its updates and security; no docs, man pages
    # or translations (the -slim images' dpkg excludes); no package lists.
    rm -f "${rootfs}/etc/apt/sources.list"
    cat >"${rootfs}/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: ${MIRROR}
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${SECURITY}
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    cat >"${rootfs}/etc/dpkg/dpkg.cfg.d/docker-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
    find "${rootfs}/usr/share/doc" -mindepth 2 ! -name copyright -delete 2>/dev/null || true
    rm -rf "${rootfs}/usr/share/man/"* "${rootfs}/usr/share/info/"* \
        "${rootfs}/var/lib/apt/lists/"* "${rootfs}/var/cache/apt/"*.bin \
        "${rootfs}/var/cache/apt/archives/"*.deb "${rootfs}/var/log/"*.log
    find "${rootfs}/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias \
        -exec rm -rf {} + 2>/dev/null || true
    tar -C "${rootfs}" -c . | ${DOCKER} import --change 'CMD ["bash"]' - "${DEBIAN_IMAGE}" >/dev/null
    rm -rf "${rootfs}"
}

make_rust() {
    local sysroot context="${WORK}/rust-context"
    # The default toolchain when it is that version, else rustup's of that name.
    if [[ "$(rustc --version 2>/dev/null)" == "rustc ${RUST_VERSION} "* ]]; then
        sysroot="$(rustc --print sysroot)"
    elif ! sysroot="$(rustc "+${RUST_VERSION}" --print sysroot 2>/dev/null)"; then
        command -v rustup >/dev/null 2>&1 || fail "no rustup: cannot find Rust ${RUST_VERSION} to copy into ${RUST_IMAGE}"
        rustup toolchain install "${RUST_VERSION}" --profile minimal
        sysroot="$(rustc "+${RUST_VERSION}" --print sysroot)"
    fi
    rm -rf "${context}"
    mkdir -p "${context}/toolchain"
    cp docker/standins/rust.Dockerfile "${context}/Dockerfile"
    cp /etc/ssl/certs/ca-certificates.crt "${context}/ca.crt"
    # bin and lib are the toolchain (share/ is its documentation).
    ln -s "${sysroot}/bin" "${sysroot}/lib" "${context}/toolchain/"
    tar -C "${context}" -ch . | ${DOCKER} build -q --force-rm --network host \
        --build-arg "BASE=${DEBIAN_IMAGE}" -t "${RUST_IMAGE}" - >/dev/null
    rm -rf "${context}"
}

make_service() {
    local image="$1" name="$2"
    ${DOCKER} build -q --force-rm --network host --build-arg "BASE=${DEBIAN_IMAGE}" \
        -f "docker/standins/${name}.Dockerfile" -t "${image}" docker/standins >/dev/null
}

step "stand-ins for ${DEBIAN_IMAGE}, ${RUST_IMAGE}, ${POSTGRES_IMAGE}, ${NATS_IMAGE}, ${HAPROXY_IMAGE}"
if have_image "${DEBIAN_IMAGE}"; then echo "   ${DEBIAN_IMAGE}: kept from the last run"; else
    timed "${DEBIAN_IMAGE} by debootstrap from ${MIRROR}" make_debian
fi
if have_image "${RUST_IMAGE}"; then echo "   ${RUST_IMAGE}: kept from the last run"; else
    timed "${RUST_IMAGE}" make_rust
fi
# PostgreSQL, NATS and HAProxy are not needed before the cluster: they are made in the
# background, beside the image's build (apt-get mostly waits for the network, cargo for
# the CPU), which saves their minute.
SERVICES_PID=""
services=()
for pair in "${POSTGRES_IMAGE} postgres" "${NATS_IMAGE} nats" "${HAPROXY_IMAGE} haproxy"; do
    set -- ${pair}
    if have_image "$1"; then echo "   $1: kept from the last run"; else services+=("${pair}"); fi
done
make_services() {
    for pair in "${services[@]}"; do
        set -- ${pair}
        timed "$1" make_service "$1" "$2"
    done
}
# With CI_DOCKER_PREPARE there is no build to make them beside: made now.
if [ "${#services[@]}" -gt 0 ] && [ "${PREPARE}" != 0 ]; then
    make_services
elif [ "${#services[@]}" -gt 0 ]; then
    echo "   the others in the background, beside the image's build"
    make_services >"${WORK}/standins.log" 2>&1 &
    SERVICES_PID=$!
fi
# What each stand-in really is.
debian_version="$(${DOCKER} run --rm --network none "${DEBIAN_IMAGE}" cat /etc/debian_version)"
rust_version="$(${DOCKER} run --rm --network none "${RUST_IMAGE}" rustc --version)"
ok "${DEBIAN_IMAGE} is Debian ${debian_version}"
ok "${RUST_IMAGE} is ${rust_version}"
[ "${PREPARE}" = 0 ] || exit 0

# --- 4. the real image -----------------------------------------------------------------
# CPU time spent in containers (all of them, the builds' too): dockerd's cgroup, v1 or
# v2; nothing when neither is there. The build's share says what the build costs on a
# machine shared with other work, whose wall-clock time says little.
docker_cpu_ms() {
    if [ -r /sys/fs/cgroup/cpuacct/docker/cpuacct.usage ]; then
        echo $(($(cat /sys/fs/cgroup/cpuacct/docker/cpuacct.usage) / 1000000))
    elif [ -r /sys/fs/cgroup/docker/cpu.stat ]; then
        awk '$1 == "usage_usec" { printf "%d\n", $2 / 1000 }' /sys/fs/cgroup/docker/cpu.stat
    fi
}
step "docker build -f docker/Dockerfile -t arcade:latest . (cargo build --release --locked inside)"
began="$(now)"
cpu_before="$(docker_cpu_ms)"
${DOCKER} build --force-rm --network host -f docker/Dockerfile -t arcade:latest . >"${WORK}/build.log" 2>&1 \
    || fail "docker build failed: $(tail -30 "${WORK}/build.log")"
# Two cargo builds: the dependencies' layer, then arcade itself.
sed 's/\x1b\[[0-9;]*m//g' "${WORK}/build.log" | grep -o 'Finished .*' | sed 's/^/   cargo: /' || true
cpu_after="$(docker_cpu_ms)"
cpu=""
if [ -n "${cpu_before}" ] && [ -n "${cpu_after}" ]; then
    cpu=" (CPU time in containers meanwhile: $(((cpu_after - cpu_before) / 1000)) s; load average now $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores)"
fi
ok "image arcade:latest built in $(($(now) - began)) s${cpu}"
size="$(${DOCKER} image inspect -f '{{.Size}}' arcade:latest)"
base_size="$(${DOCKER} image inspect -f '{{.Size}}' "${DEBIAN_IMAGE}")"
ok "image size $((size / 1000000)) MB (${DEBIAN_IMAGE} stand-in $((base_size / 1000000)) MB + arcade's layers $(((size - base_size) / 1000000)) MB)"
user="$(${DOCKER} image inspect -f '{{.Config.User}}' arcade:latest)"
[ "${user}" = arcade ] || fail "the image runs as '${user}', not the user arcade"
stopsignal="$(${DOCKER} image inspect -f '{{.Config.StopSignal}}' arcade:latest)"
[ "${stopsignal}" = SIGTERM ] || fail "the image's STOPSIGNAL is '${stopsignal}'"
checks="$(${DOCKER} run --rm --network none --entrypoint /bin/sh arcade:latest \
    -c 'id -u; stat -c %u /data; wc -c </usr/local/bin/arcade')"
uid="$(echo "${checks}" | sed -n 1p)"
owner="$(echo "${checks}" | sed -n 2p)"
binary_size="$(echo "${checks}" | sed -n 3p)"
[ "${uid}" = 10001 ] || fail "the image's user has uid '${uid}', not 10001"
[ "${owner}" = 10001 ] || fail "/data belongs to uid '${owner}', not 10001"
# Stripped: no symbol table left (read on this machine: the image has no binutils).
container="$(${DOCKER} create --network none arcade:latest)"
${DOCKER} cp "${container}:/usr/local/bin/arcade" "${WORK}/arcade.bin"
${DOCKER} rm -v "${container}" >/dev/null
if readelf -S "${WORK}/arcade.bin" | grep -q '\.symtab'; then
    fail "the image's binary has a symbol table: not stripped"
fi
rm -f "${WORK}/arcade.bin"
ok "runs as arcade (uid 10001), /data owned by it, STOPSIGNAL SIGTERM, binary $(awk -v b="${binary_size}" 'BEGIN { printf "%.1f", b / 1e6 }') MB, stripped (no .symtab)"

# --- 5. the class lab ------------------------------------------------------------------
# The class's levels: a copy of docker/class-levels, so that the reload check can add
# a file without touching the repository (ARCADE_CLASS_LEVELS, compose.yaml).
LEVELS="${WORK}/class-levels"
rm -rf "${LEVELS}"
cp -r docker/class-levels "${LEVELS}"
chmod -R a+rX "${LEVELS}"
chmod a+rx "${WORK}"
export ARCADE_CLASS_LEVELS="${LEVELS}"
for port in 4000 2222 8080 4001 2223 8081 8082 8083 8404; do
    if nc -z 127.0.0.1 "${port}" 2>/dev/null; then
        fail "port ${port} is in use on this machine: compose.yaml publishes it"
    fi
done

# Ready: a whole lobby round trip through the published port (docker-proxy accepts
# before the server inside listens).
wait_game() { # PORT [SECONDS]
    local deadline=$(($(now) + ${2:-60}))
    until printf 'quit\r\n' | nc -q 5 -w 5 127.0.0.1 "$1" 2>/dev/null | grep -q "Goodbye."; do
        [ "$(now)" -lt "${deadline}" ] || fail "no game on port $1 after ${2:-60} s"
        sleep 0.5
    done
}
container_of() { dcc ps -q "$1"; }
health_of() { ${DOCKER} inspect -f '{{.State.Health.Status}}' "$(container_of "$1")"; }
wait_healthy() { # SERVICE [SECONDS]
    local deadline=$(($(now) + ${2:-120})) status
    while status="$(health_of "$1")" && [ "${status}" != healthy ]; do
        [ "$(now)" -lt "${deadline}" ] || fail "$1 is '${status}', not healthy, after ${2:-120} s"
        sleep 1
    done
}

step "class lab: docker-compose up -d arcade"
began="$(now)"
dc up -d --no-build arcade 2>&1 | sed 's/^/   /'
wait_game 4000
ok "the game answers on 127.0.0.1:4000 $(($(now) - began)) s after up"

step "class lab: a student plays the classic transcript with nc"
expected="$(awk -v prompt='Enter command: ' \
    '{ if (index($0, prompt) == 1) printf "%s", prompt; else printf "%s\r\n", $0 }' \
    tests/data/classic_transcript.txt; echo .)"
expected="${expected%.}"
got="$({ echo "play sokoban classic"; sed -n 's/^Enter command: //p' tests/data/classic_transcript.txt; echo quit; } \
    | nc -q 10 -w 10 127.0.0.1 4000 | tr -d '\000'; echo .)"
got="${got%.}"
[[ "${got}" == *"${expected}"* ]] \
    || fail "nc's game differs from tests/data/classic_transcript.txt; it got: $(printf '%q' "${got}")"
[[ "${got}" == *"Goodbye."* ]] || fail "no Goodbye. after quit"
ok "nc played tests/data/classic_transcript.txt through port 4000 byte for byte ($(echo "${expected}" | grep -c 'Enter command: ') moves, Win!, Goodbye.)"

step "class lab: the teacher's web page and SSH through their published ports"
page="$(curl -fsS --max-time 10 http://127.0.0.1:8080/)" || fail "no web page on 127.0.0.1:8080"
[[ "${page}" == *"<title>"*"arcade</title>"* ]] || fail "the page on 8080 is not arcade's: ${page:0:200}"
ok "GET http://127.0.0.1:8080/ answers arcade's page ($(echo "${page}" | grep -o '<title>[^<]*</title>'))"
[ "$(curl -fsS --max-time 10 http://127.0.0.1:8080/healthz)" = ok ] || fail "/healthz does not say ok"
ok "GET /healthz says ok"
banner="$(timeout 10 nc -w 5 127.0.0.1 2222 </dev/null | head -c 8 || true)"
[ "${banner}" = "SSH-2.0-" ] || fail "no SSH banner on 127.0.0.1:2222: '${banner}'"
ok "port 2222 answers SSH-2.0-"

step "class lab: the container turns healthy (HEALTHCHECK: arcade healthcheck, every 30 s)"
began="$(now)"
wait_healthy arcade 120
ok "arcade is healthy ($(($(now) - began)) s after the checks above)"

step "class lab: a registered account survives docker-compose restart and a new container"
player_register student 4000 "lab-secret-1"
session_close student
began="$(now)"
dc restart arcade 2>&1 | sed 's/^/   /'
wait_game 4000
player_login student 4000 "lab-secret-1"
session_close student
ok "after restart ($(($(now) - began)) s), student logs in with the password registered before"
old="$(container_of arcade)"
dc up -d --no-build --force-recreate arcade 2>&1 | sed 's/^/   /'
new="$(container_of arcade)"
[ -n "${new}" ] && [ "${new}" != "${old}" ] || fail "no new container (was ${old:0:12}, now ${new:0:12})"
wait_game 4000
player_login student 4000 "lab-secret-1"
session_close student
ok "new container ${new:0:12} (was ${old:0:12}) on the same volume: student logs in"

step "class lab: SIGTERM (docker-compose stop) within the grace period, the game kept"
player_login student 4000 "lab-secret-1"
session_send student "play sokoban lab-warmup"
session_expect student "Enter command: "
session_send student "d1"
session_expect student "Enter command: "
board="${SAID}"
began_ns="$(date +%s%N)"
dc stop arcade 2>&1 | sed 's/^/   /'
stop_ms=$((($(date +%s%N) - began_ns) / 1000000))
session_expect student "Server shutting down. Your game is kept: type resume when you are back."
session_wait_closed student
session_close student
exit_code="$(${DOCKER} inspect -f '{{.State.ExitCode}}' "$(container_of arcade)")"
[ "${exit_code}" = 0 ] || fail "arcade exited with ${exit_code} on SIGTERM (137: killed after the grace period)"
[ "${stop_ms}" -lt 10000 ] || fail "docker-compose stop took ${stop_ms} ms (grace period 10 s)"
ok "stopped in ${stop_ms} ms (grace period 10 s), exit code 0; the player was told: Server shutting down. Your game is kept: type resume when you are back."
dc start arcade 2>&1 | sed 's/^/   /'
wait_game 4000
player_login student 4000 "lab-secret-1"
[[ "${SAID}" == *"You have an unfinished sokoban game."* ]] \
    || fail "after the restart the login did not mention the game: $(printf '%q' "${SAID}")"
session_send student "resume"
session_expect student "Enter command: "
[ "${SAID}" = "Your sokoban game, as you left it."$'\r\n'"${board}" ] \
    || fail "resume showed $(printf '%q' "${SAID}"), not the board left: $(printf '%q' "${board}")"
session_close student
ok "after start: 'You have an unfinished sokoban game.', resume shows the board as it was left"

step "class lab: levels from the mounted folder, a file added and docker-compose kill -s HUP"
session_open visitor 4000
session_expect visitor "> "
session_send visitor "play sokoban ci-added"
session_expect visitor "> "
[[ "${SAID}" != *"Enter command: "* ]] || fail "ci-added was playable before it was added"
printf '#####\n#P+-#\n#####\n' >"${LEVELS}/sokoban/ci-added.txt"
chmod a+r "${LEVELS}/sokoban/ci-added.txt"
started="$(${DOCKER} inspect -f '{{.State.StartedAt}}' "$(container_of arcade)")"
dc kill -s HUP arcade 2>&1 | sed 's/^/   /'
deadline=$(($(now) + 30))
until dc logs --no-color arcade 2>/dev/null | grep -q "levels reloaded"; do
    [ "$(now)" -lt "${deadline}" ] || fail "no 'levels reloaded' in the log after SIGHUP"
    sleep 0.5
done
[ "$(${DOCKER} inspect -f '{{.State.Running}} {{.State.StartedAt}}' "$(container_of arcade)")" = "true ${started}" ] \
    || fail "the container did not go on running after SIGHUP"
session_send visitor "play sokoban ci-added"
session_expect visitor "Enter command: "
session_send visitor "d1"
session_expect visitor "Win!"
session_close visitor
ok "after HUP the log says 'levels reloaded', the same container plays the new level ci-added to Win! (lab-warmup, from the folder, played above)"

step "class lab: docker-compose down -v"
dc down -v 2>&1 | sed 's/^/   /'
# What a `down -v` should have removed: containers, volumes, networks. With `project`,
# compose's only (stand-ins may still be building in the background: their build
# containers are not compose's); else all of this dockerd's, anonymous volumes too.
left_behind() { # [project]
    local filter=()
    [ "${1:-}" != project ] || filter=(--filter "label=com.docker.compose.project=${PROJECT}")
    ${DOCKER} ps -aq "${filter[@]}"
    ${DOCKER} volume ls -q "${filter[@]}"
    ${DOCKER} network ls -q --filter type=custom "${filter[@]}"
}
[ -z "$(left_behind project)" ] || fail "down -v left: $(left_behind project | tr '\n' ' ')"
ok "down -v left no container, volume or network of the project"

# The stand-ins made in the background (section 3): ready by now, or waited for.
if [ -n "${SERVICES_PID}" ]; then
    wait "${SERVICES_PID}" || fail "a stand-in could not be made: $(tail -20 "${WORK}/standins.log")"
    SERVICES_PID=""
    grep '^   (' "${WORK}/standins.log" || true
fi
postgres_version="$(${DOCKER} run --rm --network none --entrypoint postgres "${POSTGRES_IMAGE}" --version)"
nats_version="$(${DOCKER} run --rm --network none "${NATS_IMAGE}" --version)"
haproxy_version="$(${DOCKER} run --rm --network none --entrypoint haproxy "${HAPROXY_IMAGE}" -v | sed -n 1p)"
ok "${POSTGRES_IMAGE} is ${postgres_version}"
ok "${NATS_IMAGE} is ${nats_version}"
ok "${HAPROXY_IMAGE} is ${haproxy_version}"

# --- 6. the cluster profile ------------------------------------------------------------
if [ "${CI_DOCKER_CLUSTER:-1}" = 0 ]; then
    echo "== docker: cluster profile skipped (CI_DOCKER_CLUSTER=0)"
else
    haproxy_states() { # "arcade-1=UP arcade-2=UP arcade-3=UP", from HAProxy's page
        curl -fsS --max-time 5 "http://127.0.0.1:8404/;csv" 2>/dev/null \
            | awk -F, '$1 == "arcade" && $2 ~ /^arcade-[0-9]$/ { print $2 "=" $18 }' \
            | sort | tr '\n' ' ' | sed 's/ $//'
    }
    wait_states() { # WANTED [SECONDS]
        local deadline=$(($(now) + ${2:-60}))
        until [ "$(haproxy_states)" = "$1" ]; do
            [ "$(now)" -lt "${deadline}" ] || fail "HAProxy sees '$(haproxy_states)', not '$1'"
            sleep 0.2
        done
    }
    sessions_on() { # HTTP-PORT: sessions open on that instance (its /metrics)
        curl -fsS --max-time 5 "http://127.0.0.1:$1/metrics" \
            | awk '/^arcade_sessions\{/ { n += $2 } END { print n + 0 }'
    }

    step "cluster: docker-compose --profile cluster up -d haproxy (PostgreSQL, NATS, arcade-1..3, HAProxy)"
    began="$(now)"
    dcc up -d --no-build haproxy 2>&1 | sed 's/^/   /'
    for service in postgres arcade-1 arcade-2 arcade-3; do wait_healthy "${service}" 180; done
    wait_states "arcade-1=UP arcade-2=UP arcade-3=UP"
    ok "postgres and arcade-1..3 healthy, HAProxy sees $(haproxy_states) ($(($(now) - began)) s)"
    wait_game 4001

    step "cluster: a registered player through HAProxy (port 4001) on each instance"
    declare -A BOARD
    for player in ann bob cyd; do
        player_register "${player}" 4001 "secret-${player}"
        session_send "${player}" "play sokoban"
        session_expect "${player}" "Enter command: "
        session_send "${player}" "w2"
        session_expect "${player}" "Enter command: "
        BOARD[${player}]="${SAID}"
    done
    deadline=$(($(now) + 30))
    until [ "$(sessions_on 8081) $(sessions_on 8082) $(sessions_on 8083)" = "1 1 1" ]; do
        [ "$(now)" -lt "${deadline}" ] \
            || fail "sessions on arcade-1..3: $(sessions_on 8081) $(sessions_on 8082) $(sessions_on 8083), not one each"
        sleep 0.5
    done
    ok "ann, bob and cyd registered and playing, one on each instance (arcade_sessions on 8081..8083: 1 1 1)"

    step "cluster: SSH through HAProxy (port 2223), one host key on every instance"
    prints=""
    for service in arcade-1 arcade-2 arcade-3; do
        print="$(dcc logs --no-color "${service}" 2>&1 \
            | sed -n 's/.*SSH host key fingerprint \(SHA256:[A-Za-z0-9+/]*\).*/\1/p' | tail -1)"
        [ -n "${print}" ] || fail "${service} logged no SSH host key fingerprint"
        prints="${prints}${prints:+ }${print}"
    done
    [ "$(echo "${prints}" | tr ' ' '\n' | sort -u | wc -l)" = 1 ] \
        || fail "the instances logged different host keys: ${prints}"
    known="${WORK}/known_hosts"
    ssh-keyscan -p 2223 -t ed25519 127.0.0.1 >"${known}" 2>/dev/null
    scanned="$(ssh-keygen -lf "${known}" | awk '{ print $2 }')"
    [ "${scanned}" = "${prints%% *}" ] \
        || fail "HAProxy's port 2223 shows the key ${scanned:-(none)}, the instances log ${prints%% *}"
    # Three logins at once with the key checked strictly: leastconn spreads them, and
    # each one lists the players of all three instances (the bus).
    logins=()
    for n in 1 2 3; do
        timeout 30 ssh -F /dev/null -o StrictHostKeyChecking=yes -o UserKnownHostsFile="${known}" \
            -o IdentityAgent=none -o BatchMode=yes -o LogLevel=ERROR -p 2223 "guest@127.0.0.1" who \
            >"${WORK}/ssh-who-${n}.txt" 2>&1 &
        logins+=("$!")
    done
    # Only these three: the players' nc sessions run in the background too.
    for login in "${logins[@]}"; do
        wait "${login}" || fail "an ssh login through port 2223 failed: $(cat "${WORK}"/ssh-who-*.txt)"
    done
    for n in 1 2 3; do
        for player in ann bob cyd; do
            grep -q "${player}" "${WORK}/ssh-who-${n}.txt" \
                || fail "ssh ... who through 2223 did not list ${player}: $(cat "${WORK}/ssh-who-${n}.txt")"
        done
    done
    ok "arcade-1..3 log one host key (${prints%% *}), port 2223 shows it, three strict ssh logins list ann, bob and cyd"

    step "cluster: docker-compose kill arcade-2; its player resumes on another instance"
    began_ns="$(date +%s%N)"
    dcc kill arcade-2 2>&1 | sed 's/^/   /'
    cut=""
    deadline=$(($(now) + 30))
    while [ -z "${cut}" ]; do
        for player in ann bob cyd; do
            kill -0 "${SESSION_PID[${player}]}" 2>/dev/null || cut="${cut}${cut:+ }${player}"
        done
        [ -n "${cut}" ] || [ "$(now)" -lt "${deadline}" ] || fail "nobody's connection was cut by the kill"
        [ -n "${cut}" ] || sleep 0.2
    done
    [ "${cut}" = "${cut%% *}" ] || fail "more than one player was cut: ${cut}"
    wait_states "arcade-1=UP arcade-2=DOWN arcade-3=UP" 30
    down_ms=$((($(date +%s%N) - began_ns) / 1000000))
    ok "${cut}'s connection was cut; HAProxy marked arcade-2 DOWN ${down_ms} ms after the kill"
    session_close "${cut}"
    deadline=$(($(now) + 30))
    while :; do
        player_login "${cut}" 4001 "secret-${cut}"
        [[ "${SAID}" != *"You have an unfinished sokoban game."* ]] || break
        session_close "${cut}"
        [ "$(now)" -lt "${deadline}" ] || fail "${cut}'s login never mentioned the unfinished game: $(printf '%q' "${SAID}")"
        sleep 1
    done
    session_send "${cut}" "resume"
    session_expect "${cut}" "Enter command: "
    [ "${SAID}" = "Your sokoban game, as you left it."$'\r\n'"${BOARD[${cut}]}" ] \
        || fail "${cut}'s resume showed $(printf '%q' "${SAID}"), not the board left: $(printf '%q' "${BOARD[${cut}]}")"
    ok "${cut} logged in through 4001 again: 'You have an unfinished sokoban game.', resume shows the board as it was left"
    for player in ann bob cyd; do
        [ "${player}" = "${cut}" ] && continue
        session_send "${player}" "a2"
        session_expect "${player}" "Enter command: "
    done
    total=$(($(sessions_on 8081) + $(sessions_on 8083)))
    [ "${total}" = 3 ] || fail "arcade-1 and arcade-3 have ${total} sessions, not the 3 players"
    ok "the other two players play on undisturbed; arcade-1 and arcade-3 hold all 3 players"
    sessions_close_all

    step "cluster: docker-compose --profile cluster down -v"
    dcc down -v 2>&1 | sed 's/^/   /'
fi
[ -z "$(left_behind)" ] || fail "down -v left: $(left_behind | tr '\n' ' ')"
ok "down -v left no container, volume or network (anonymous volumes too) in this dockerd"

exit 0
}
