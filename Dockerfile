# NavPrefs: release build on the official Swift image, run on Debian slim with only the C
# libraries the binary links (the Swift runtime is linked statically).
#
#   docker build -t navprefs .
#   docker run -d -p 8080:8080 -v navprefs-data:/data navprefs
#
# Both base images are build arguments, so a machine without a registry can substitute local
# images (scripts/verify-container.sh does: a bookworm image with the build dependencies and
# the toolchain bind-mounted from /opt/swift, and a debootstrapped bookworm).
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libmicrohttpd-dev libsqlite3-dev libjansson-dev libpq-dev libssl-dev libyaml-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
# The console's build plugin, and the contract it compiles into the binary with the console's
# files (openapi.json is made from openapi.yaml there, with libyaml-dev above).
COPY Plugins ./Plugins
COPY openapi.yaml ./
# Package.swift declares the test targets, and SwiftPM refuses a manifest whose target
# directories are missing, even for `--product navprefs`. .dockerignore keeps every test source
# out, so this copies only the empty directories (and the image does not rebuild on test edits).
COPY Tests ./Tests
RUN swift build -c release --static-swift-stdlib --product navprefs \
 && install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/navprefs" /out/navprefs

FROM ${RUNTIME_IMAGE} AS runtime
# The contents of VERSION, the one source of the version (VersionTests fails when they differ).
ARG VERSION=0.5.0
ARG REVISION=unknown
ARG SOURCE_URL=""
LABEL org.opencontainers.image.title="navprefs" \
      org.opencontainers.image.description="NavPrefs: UserDefaults, NotificationCenter and UINavigationController semantics as an HTTP service" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE_URL}"

# Runtime libraries only (the HEALTHCHECK needs no curl) and the unprivileged user.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libmicrohttpd12 libsqlite3-0 libjansson4 libpq5 libssl3 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 65532 navprefs \
 && useradd --system --no-log-init --uid 65532 --gid 65532 --home-dir /data --no-create-home \
      --shell /usr/sbin/nologin navprefs \
 && install -d -o 65532 -g 65532 -m 0750 /data

COPY --from=build /out/navprefs /usr/local/bin/navprefs

ENV HOST=0.0.0.0 \
    PORT=8080 \
    DATABASE_URL=sqlite:/data/navprefs.sqlite
# /data is owned by 65532 in the image; Docker and podman give a new named volume that owner.
VOLUME ["/data"]
WORKDIR /data
USER 65532:65532
EXPOSE 8080

# GET /healthz over bash's /dev/tcp on 127.0.0.1 and the port the service was given (PORT):
# healthy (0) only for a 200 status line within 2 s, else unhealthy (1). Exec form, and no
# curl in the image (curl would add 15 packages, about 5.8 MB). Assumes HOST is 0.0.0.0 or
# 127.0.0.1.
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
  CMD ["/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/\"${PORT:-8080}\" && printf 'GET /healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && read -r -t 2 _ status _ <&3 && [ \"$status\" = 200 ] || exit 1"]

# navprefs drains in-flight requests on SIGTERM (SHUTDOWN_GRACE_SECONDS, default 8, below
# Docker's 10 s stop timeout) and exits 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/navprefs"]
