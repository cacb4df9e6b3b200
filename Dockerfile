# cronwarden: one image for every component (webhook, controller, migrate Job, audit CronJob).
#
#   docker build -t registry.example.com/cronwarden:0.1.0 .
#   podman build --isolation chroot -t registry.example.com/cronwarden:0.1.0 .
#
# Build stage: Debian bookworm with the project's own build package list (scripts/lib.sh,
# CW_BUILD_PKGS), Release, tests not built. Runtime stage: from scratch, holding the binary and
# exactly what it needs at run time (scripts/image-rootfs: its shared libraries, tzdata for
# CRON_TZ/TZ= zones, the CA bundle, passwd entries): no shell, no package manager, no compiler.
# Runs as the unprivileged user 65532, as deploy/ expects (runAsNonRoot, read-only root
# filesystem). Only plain RUN lines (no SHELL), so Docker and podman's OCI format build it alike.

FROM debian:bookworm AS build
ENV DEBIAN_FRONTEND=noninteractive
COPY scripts/lib.sh /src/scripts/lib.sh
RUN bash -c '. /src/scripts/lib.sh && apt-get update -q && apt-get install -y -q --no-install-recommends "${CW_BUILD_PKGS[@]}" && rm -rf /var/lib/apt/lists/*'
COPY . /src
RUN cmake -S /src -B /build -DCMAKE_BUILD_TYPE=Release -DCW_BUILD_TESTS=OFF \
 && cmake --build /build -j"$(nproc)" --target cronwarden \
 && install -D -s -m 0755 /build/cmd/cronwarden /out/rootfs/usr/local/bin/cronwarden \
 && sh /src/scripts/image-rootfs /out/rootfs

FROM scratch
COPY --from=build /out/rootfs/ /
# Fails the build if a shared library is missing.
RUN ["/usr/local/bin/cronwarden", "version"]
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/cronwarden"]
CMD ["--help"]
LABEL org.opencontainers.image.title="cronwarden" \
      org.opencontainers.image.description="Keeps Longhorn and Velero backup schedules correct across upgrades and at admission" \
      org.opencontainers.image.version="0.1.0"
