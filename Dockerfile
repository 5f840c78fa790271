# syntax=docker/dockerfile:1
# The spend-auth service image: one image for `serve`, `worker` and `migrate` (see docker-compose.yml).
#   docker build -t spend-auth .
#   docker run --rm -e DATABASE_URL=… -e AUDIT_HMAC_KEY=… -e IDEMPOTENCY_ENCRYPTION_KEY=… spend-auth migrate
# Stages: deps (all dependencies) → build (TypeScript to dist/, workflows prebundled to
# dist/workflow-bundle.js) → runtime (production dependencies, dist/ and dashboard/, as the `node` user).
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY scripts ./scripts
# The worker loads dist/workflow-bundle.js when present, so it starts without bundling (webpack) at runtime.
RUN npm run build && npm run build:workflows

FROM ${NODE_IMAGE} AS runtime
# Production: TOKEN_SIGNING_KEY, IDEMPOTENCY_ENCRYPTION_KEY and AUDIT_HMAC_KEY are required (no
# development keys), and bin/spend-auth.js runs dist/src/cli/main.js.
ENV NODE_ENV=production \
    PORT=3000 \
    METRICS_PORT=9464 \
    DATA_DIR=/var/lib/spend-auth
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
# The reviewer dashboard: static files served at /dashboard as they are (no build step).
COPY dashboard ./dashboard
COPY --from=build /app/dist ./dist
RUN mkdir -p /var/lib/spend-auth && chown node:node /var/lib/spend-auth
USER node
EXPOSE 3000 9464
ENTRYPOINT ["node", "bin/spend-auth.js"]
CMD ["serve"]
