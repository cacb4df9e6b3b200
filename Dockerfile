# cronwarden: one image for every component (webhook, controller, migrate Job, audit CronJob).
#
#   docker build -t registry.example.com/cronwarden:0.1.0 .
#
# Build stage: Debian bookworm with the project's own build package list (scripts/lib.sh,
# CW_BUILD_PKGS), the same compiler and flags as CI, warnings as errors, tests not built.
# Runtime stage: bookworm-slim with only the shared libraries the binary links (libjson-c,
# libyaml, libxxhash, libcurl, OpenSSL, libmicrohttpd, GnuTLS) plus tzdata (CRON_TZ/TZ= zones)
# and ca-certificates; no shell tools beyond the base image, no compiler, no package cache.
# Runs as the unprivileged user 65532, as deploy/ expects (runAsNonRoot, read-only root filesystem).

FROM debian:bookworm AS build
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
ENV DEBIAN_FRONTEND=noninteractive
COPY scripts/lib.sh /src/scripts/lib.sh
RUN . /src/scripts/lib.sh \
 && apt-get update -q \
 && apt-get install -y -q --no-install-recommends "${CW_BUILD_PKGS[@]}" \
 && rm -rf /var/lib/apt/lists/*
COPY . /src
RUN cmake -S /src -B /build -DCMAKE_BUILD_TYPE=Release -DCW_BUILD_TESTS=OFF \
 && cmake --build /build -j"$(nproc)" --target cronwarden \
 && install -D -s -m 0755 /build/cmd/cronwarden /out/cronwarden

FROM debian:bookworm-slim
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends \
      libjson-c5 libyaml-0-2 libxxhash0 libcurl4 libssl3 libmicrohttpd12 libgnutls30 \
      tzdata ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 65532 nonroot \
 && useradd --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin nonroot
COPY --from=build /out/cronwarden /usr/local/bin/cronwarden
# Fails the build if a shared library is missing.
RUN cronwarden version
USER 65532:65532
ENTRYPOINT ["cronwarden"]
CMD ["--help"]
LABEL org.opencontainers.image.title="cronwarden" \
      org.opencontainers.image.description="Keeps Longhorn and Velero backup schedules correct across upgrades and at admission" \
      org.opencontainers.image.version="0.1.0"
