/**
 * docker-compose.yml, the Dockerfile and the configuration docs against the code: the stack has
 * every service it should, pins its images, sets only variables src/config.ts reads, and the
 * configuration tables of README.md and docs/operations.md list exactly those variables.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, test } from 'vitest';
import { parse } from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config.js';
import { ALL_SEARCH_ATTRIBUTE_KEYS } from '../../src/temporal/search-attributes.js';
import { WHEEL_VERSION } from '../../src/temporal/cli-wheel.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  entrypoint?: string[] | string;
  environment?: Record<string, string | number | boolean | null>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string };
  restart?: string;
}
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const service = (name: string): Service => {
  const s = services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
};
const APP_SERVICES = ['migrate', 'api', 'worker'] as const;
const envOf = (name: string) => service(name).environment ?? {};

/** Variable names in the first column of the markdown table under `heading`. */
function configTable(markdown: string, heading: RegExp): string[] {
  const start = markdown.split('\n').findIndex((l) => heading.test(l));
  expect(start, `no heading ${heading} found`).toBeGreaterThanOrEqual(0);
  const lines = markdown.split('\n').slice(start + 1);
  const rows: string[] = [];
  let inTable = false;
  for (const line of lines) {
    if (line.startsWith('|')) {
      inTable = true;
      rows.push(line);
    } else if (inTable) {
      break;
    } else if (/^#{1,3} /.test(line)) {
      break;
    }
  }
  const names = rows.slice(2).flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
  expect(names.length, `no variables in the table under ${heading}`).toBeGreaterThan(0);
  return names;
}

describe('docker-compose.yml services', () => {
  it('runs postgres, Temporal (schema job, server, namespace job, UI) and the service (migrate, api, worker)', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'migrate', 'postgres', 'temporal', 'temporal-namespace', 'temporal-schema', 'temporal-ui', 'worker']);
  });

  it('health-checks postgres and the Temporal server, and orders start-up on them', () => {
    expect(service('postgres').healthcheck).toBeDefined();
    expect(service('temporal').healthcheck).toBeDefined();
    expect(service('temporal-schema').depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(service('temporal').depends_on).toEqual({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    expect(service('temporal-namespace').depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
    expect(service('api').depends_on).toMatchObject({ postgres: { condition: 'service_healthy' }, migrate: { condition: 'service_completed_successfully' } });
    expect(service('worker').depends_on).toMatchObject({ migrate: { condition: 'service_completed_successfully' }, 'temporal-namespace': { condition: 'service_completed_successfully' } });
  });

  it('runs the Temporal server on PostgreSQL 12+ persistence, on port 7233, with its dynamic config', () => {
    const env = envOf('temporal');
    expect(env).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres', POSTGRES_USER: 'temporal' });
    expect(env.DYNAMIC_CONFIG_FILE_PATH).toBe('config/dynamicconfig/development-sql.yaml');
    expect(fs.existsSync(path.join(ROOT, 'docker/temporal/dynamicconfig/development-sql.yaml'))).toBe(true);
    expect(service('temporal').ports).toContain('7233:7233');
  });

  it('creates both Temporal schemas in the admin-tools one-shot', () => {
    const script = read('docker/temporal/setup-schema.sh');
    expect(service('temporal-schema').command).toEqual(['/scripts/setup-schema.sh']);
    expect(script).toContain('create_database temporal\n');
    expect(script).toContain('create_database temporal_visibility\n');
    expect(script).toMatch(/update-schema -d "\$SCHEMA_DIR\/visibility\/versioned"/);
  });

  it('registers the namespace the service uses and every search attribute its workflows set, with their types', () => {
    const script = read('docker/temporal/create-namespace.sh');
    expect(service('temporal-namespace').command).toEqual(['/scripts/create-namespace.sh']);
    expect(envOf('temporal-namespace').NAMESPACE).toBe(envOf('worker').TEMPORAL_NAMESPACE);
    const TYPE = { KEYWORD: 'Keyword', INT: 'Int', BOOL: 'Bool' } as Record<string, string>;
    for (const key of ALL_SEARCH_ATTRIBUTE_KEYS) expect(script).toContain(`${key.name}:${TYPE[key.type]}`);
    expect(script).toContain('temporal operator search-attribute create');
  });

  it('serves the Temporal UI on port 8080, pointed at the server', () => {
    expect(service('temporal-ui').ports).toContain('8080:8080');
    expect(envOf('temporal-ui')).toMatchObject({ TEMPORAL_ADDRESS: 'temporal:7233' });
    expect(envOf('temporal-ui').TEMPORAL_CORS_ORIGINS).toBeTruthy();
  });

  it('runs the service image as migrate, serve and worker', () => {
    expect(service('migrate').command).toEqual(['migrate']);
    expect(service('api').command).toEqual(['serve']);
    expect(service('worker').command).toEqual(['worker']);
    for (const name of APP_SERVICES) expect(service(name).build, name).toBe('.');
    expect(service('api').ports).toContain(`${envOf('api').PORT}:${envOf('api').PORT}`);
    expect(service('worker').ports).toContain(`${envOf('worker').METRICS_PORT}:${envOf('worker').METRICS_PORT}`);
  });

  it('runs the Temporal server and UI of the same releases as the CLI that npm start and the tests run (Server 1.32, UI 2.54)', () => {
    // temporal version 1.9.1 (Server 1.32.0, UI 2.54.1): src/temporal/cli-wheel.ts.
    expect(service('temporal').image).toBe('temporalio/server:1.32.0');
    expect(service('temporal-ui').image).toBe('temporalio/ui:2.54.1');
    for (const name of ['temporal-schema', 'temporal-namespace']) expect(service(name).image).toBe('temporalio/admin-tools:1.32.0');
    expect(WHEEL_VERSION).toBe('1.9.1');
  });

  test.each(Object.keys(services))('%s uses a pinned image', (name) => {
    const s = service(name);
    expect(s.image, `${name} names no image`).toBeTruthy();
    const [, tag] = /:([^:/]+)$/.exec(s.image!) ?? [];
    expect(tag, `${s.image} has no tag`).toBeTruthy();
    expect(tag).not.toBe('latest');
    // The service's own image is built here; every other image is a released version.
    if (s.build === undefined) expect(tag).toMatch(/^\d+\.\d+(\.\d+)?(-[a-z0-9.]+)?$/);
  });

  test.each(APP_SERVICES)('%s sets only variables src/config.ts reads, with values it accepts', (name) => {
    const env = envOf(name);
    const unknown = Object.keys(env).filter((k) => !(CONFIG_VARIABLES as readonly string[]).includes(k));
    expect(unknown).toEqual([]);
    const values = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v ?? '').replace(/\$\{([A-Z_]+):-([^}]*)\}/g, '$2')]));
    expect(() => loadConfig(values)).not.toThrow();
  });

  it('has the worker export the Temporal SDK metrics on a port of their own, scraped inside the compose network (not published)', () => {
    const port = envOf('worker').TEMPORAL_SDK_METRICS_PORT;
    expect(port).toBeTruthy();
    expect(port).not.toBe(envOf('worker').METRICS_PORT);
    expect((service('worker').ports ?? []).some((p) => p.includes(String(port)))).toBe(false);
  });

  it('gives api and worker what production requires, and the engine address of the compose server', () => {
    for (const name of ['api', 'worker']) {
      const env = envOf(name);
      expect(env.NODE_ENV).toBe('production');
      // Production refuses a development signing key: the variable must reach the process.
      expect(env.TOKEN_SIGNING_KEY).toBe('${TOKEN_SIGNING_KEY:-}');
      expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
      expect(env.DATABASE_URL).toMatch(/@postgres:5432\/spend_auth$/);
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  it('builds in stages, prebundles the workflows and runs production dependencies as the node user', () => {
    const froms = dockerfile.split('\n').filter((l) => /^FROM /.test(l));
    expect(froms.length).toBeGreaterThanOrEqual(3);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:\d+\.\d+\.\d+-[a-z]+-slim$/m);
    expect(dockerfile).toContain('RUN npm run build && npm run build:workflows');
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(dockerfile).toMatch(/COPY --from=build \/app\/dist \.\/dist/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/NODE_ENV=production/);
    expect(dockerfile).toContain('ENTRYPOINT ["node", "bin/spend-auth.js"]');
  });

  it('ships the dashboard\'s static files beside dist/, where the server looks for them', () => {
    expect(dockerfile).toMatch(/^COPY dashboard \.\/dashboard$/m);
    const ignored = read('.dockerignore').split('\n').map((l) => l.trim());
    expect(ignored).not.toContain('dashboard');
  });

  it('keeps secrets, dependencies and build output out of the build context', () => {
    const ignored = read('.dockerignore').split('\n').map((l) => l.trim());
    for (const entry of ['node_modules', 'dist', '.env', '.data', '.git']) expect(ignored).toContain(entry);
  });
});

describe('configuration tables', () => {
  test.each([
    ['README.md', /^## Configuration/],
    ['docs/operations.md', /^## Configuration/],
  ])('%s lists every variable src/config.ts reads, and nothing else', (file, heading) => {
    const listed = configTable(read(file), heading);
    expect([...listed].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('docs/operations.md describes every compose service', () => {
    const doc = read('docs/operations.md');
    const listed = configTable(doc.replace(/`([a-z][a-z-]+)`/g, (_m, s: string) => `\`${s.toUpperCase().replace(/-/g, '_')}\``), /^### The compose services/);
    expect(listed.sort()).toEqual(Object.keys(services).map((s) => s.toUpperCase().replace(/-/g, '_')).sort());
  });
});
