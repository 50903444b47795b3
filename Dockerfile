# syntax=docker/dockerfile:1
# svc image: build on a supported Node LTS, ship compiled output with production dependencies only.
# (The code itself also runs on Node 20.19+; Node 20 is past end of life, so the image does not use it.)

# 1. build: every dependency, tsoa generation, TypeScript compile.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && rm -rf dist/test dist/bench

# 2. deps: production dependencies only, from the same lockfile.
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# 3. runtime: what `node dist/interfaces/main.js` reads, nothing else; no secret is baked in
# (SVC_AUTH_TOKEN, SVC_GIT_TOKEN, OPENAI_API_KEY, QDRANT_API_KEY come from the environment at run time).
FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3456 \
    SVC_DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/dist ./dist
# the built-in prompts are read from the source tree at run time (infrastructure/config/prompts-config.ts)
COPY --from=build /app/infrastructure/prompts/builtin ./infrastructure/prompts/builtin
# the scenarios `svc sandbox` serves and `svc eval` runs (docs/evaluation.md); the sandbox makes its TLS certificate with openssl
COPY --from=build /app/scenarios ./scenarios
RUN apt-get update && apt-get install -y --no-install-recommends openssl && rm -rf /var/lib/apt/lists/*
RUN mkdir -p /data && chown 1000:1000 /data
VOLUME ["/data"]
# uid 1000 is the image's `node` user; numeric so Kubernetes' runAsNonRoot can verify it
USER 1000:1000
EXPOSE 3456
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3456) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# On a non-loopback bind svc refuses to start without SVC_AUTH_TOKEN (or SVC_ALLOW_UNAUTHENTICATED=true).
CMD ["node", "dist/interfaces/main.js"]
