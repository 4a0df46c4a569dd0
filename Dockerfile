# syntax=docker/dockerfile:1
#
# One image runs any Spindle service: SERVICE picks apps/$SERVICE/dist/main.js at start.
#
#   docker build -t spindle:local .
#   docker run --rm -e SERVICE=runner -e NATS_URL=nats://… spindle:local
#
# Stages: manifests → workspace (lock + every package.json) → deps (npm ci) → build (tsc -b);
# workspace → prod-deps (npm ci --omit=dev); runtime = prod-deps' node_modules + every
# project's package.json and compiled dist/.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS base
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

# Every workspace's package.json, picked out of the sources. The COPY --from below
# compares file contents, so the install layers after it are reused until the lock or a
# manifest changes, not on every source edit. (Plain COPY cannot keep the
# libs/<name>/ paths of a glob.)
FROM base AS manifests
COPY libs ./libs
COPY apps ./apps
RUN set -eu; \
    for manifest in libs/*/package.json apps/*/package.json; do \
      mkdir -p "/manifests/$(dirname "$manifest")"; \
      cp "$manifest" "/manifests/$manifest"; \
    done

FROM base AS workspace
COPY package.json package-lock.json ./
COPY --from=manifests /manifests/ ./

# Every dependency, dev ones included (typescript). Install scripts are skipped:
# the build is `tsc` alone, and skipping them keeps native dev-only packages
# (nx, @parcel/watcher, ssh2) from needing a compiler toolchain here.
FROM workspace AS deps
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    npm ci --ignore-scripts

FROM deps AS build
COPY tsconfig.base.json tsconfig.build.json ./
COPY libs ./libs
COPY apps ./apps
RUN npm run build
# Keep package.json + dist/ of every project; declarations and build info are not
# needed at run time (source maps stay, for readable stack traces).
RUN set -eu; \
    for project in libs/* apps/*; do \
      [ -f "$project/package.json" ] || continue; \
      mkdir -p "/out/$project"; \
      cp "$project/package.json" "/out/$project/"; \
      if [ -d "$project/dist" ]; then cp -R "$project/dist" "/out/$project/dist"; fi; \
    done; \
    find /out \( -name '*.d.ts' -o -name '*.d.ts.map' -o -name '*.tsbuildinfo' \) -type f -delete

# Production dependencies only. `npm ci` still links the workspaces, so
# node_modules/@spindle/* point at ../../libs/* and ../../apps/*.
FROM workspace AS prod-deps
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    npm ci --omit=dev --ignore-scripts

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
# Files stay owned by root: the service user can read them, not change them.
COPY --from=prod-deps /app ./
COPY --from=build /out ./
COPY --chmod=0755 deploy/docker/start.sh /usr/local/bin/spindle-start
COPY --chmod=0644 deploy/docker/healthcheck.cjs /usr/local/lib/spindle/healthcheck.cjs

# Default service of this image; override at run time with -e SERVICE=….
ARG SERVICE=gateway
ENV SERVICE=${SERVICE}

# gateway 8080, runner 8081, trace-recorder 8082, checkpoint 8083, approval 8084, dispatcher 8085
EXPOSE 8080 8081 8082 8083 8084 8085

# The `node` user of the official image, by id so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000

# /readyz of whichever service runs (NATS and, for services with tables, Postgres reachable).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["node", "/usr/local/lib/spindle/healthcheck.cjs"]

# Node runs as PID 1 (exec'd by the script) and handles SIGTERM itself.
CMD ["spindle-start"]
