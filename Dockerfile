# Build stage: install everything, generate tsoa routes/spec, compile.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

# Runtime stage: compiled output and production dependencies only.
FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3456 SVC_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/infrastructure/prompts ./infrastructure/prompts
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3456
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# On a non-loopback bind svc refuses to start without SVC_AUTH_TOKEN (or SVC_ALLOW_UNAUTHENTICATED=true).
CMD ["node", "dist/interfaces/main.js"]
