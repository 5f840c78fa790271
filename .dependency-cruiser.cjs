/**
 * The layers of docs/architecture.md, checked on every import (`npm run lint:deps`, run in CI).
 * A forbidden import fails with the name of the rule it breaks.
 *
 *   kernel     src/kernel/                      imports nothing of ours
 *   platform   src/db/                          the kernel only; migrations nothing live at all
 *   features   src/<feature>/                   kernel, platform, lower features; never an adapter
 *   adapters   src/http/, src/temporal/ with workflows/ and activities/, src/mcp/, src/rails/
 *                                               features and below; never one another
 *   top        src/process/, src/cli/           anything; imported by nothing
 */

/** Where a layer's files are, as path patterns. */
const KERNEL = '^src/kernel/';
const PLATFORM = '^src/db/';
const MIGRATIONS = '^src/db/migrations/';
const HTTP = '^src/http/';
const ENGINE = ['^src/temporal/', '^workflows/', '^activities/'];
const MCP = '^src/mcp/';
const RAILS = '^src/rails/';
const ADAPTERS = [HTTP, ...ENGINE, MCP, RAILS];
/**
 * The top: process composition and the command line, and the three files at src/'s root that only
 * they (or a package's user) read: the environment (config.ts), the server's keys (server-keys.ts)
 * and the library surface (index.ts).
 */
const TOP = ['^src/process/', '^src/cli/', '^src/(config|server-keys|index)\\.ts$'];
/** Every folder of src/ that is not one of the layers above is a feature. */
const FEATURE = '^src/(?!(kernel|db|http|temporal|mcp|rails|process|cli)/)[^/]+/';
/** The same, as a folder (rules with `scope: 'folder'` compare folders). */
const FEATURE_FOLDER = '^src/(?!(kernel|db|http|temporal|mcp|rails|process|cli)$)[^/]+$';
const OURS = ['^src/', '^workflows/', '^activities/'];

const adapterRule = (name, from, others, comment) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: { path: others },
});

module.exports = {
  forbidden: [
    {
      name: 'kernel-imports-nothing-of-ours',
      comment: 'The kernel (errors, ids, money, shared schemas, logger, config types) stands on nothing of the project.',
      severity: 'error',
      from: { path: KERNEL },
      to: { path: OURS, pathNot: KERNEL },
    },
    {
      name: 'platform-imports-only-the-kernel',
      comment: 'src/db/ (connection, types, pagination, scoped queries) is below every feature.',
      severity: 'error',
      from: { path: PLATFORM, pathNot: MIGRATIONS },
      to: { path: OURS, pathNot: [KERNEL, PLATFORM] },
    },
    {
      name: 'migrations-import-nothing-live',
      comment: 'A migration is a frozen snapshot: kysely, node built-ins and its own folder only (copy what it needs).',
      severity: 'error',
      from: { path: MIGRATIONS },
      to: { pathNot: [MIGRATIONS, '^node_modules/kysely/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'features-never-import-adapters',
      comment: 'A feature that needs the engine or the web owns a port (an interface); the adapter implements it.',
      severity: 'error',
      from: { path: FEATURE },
      to: { path: [...ADAPTERS, ...TOP] },
    },
    adapterRule('http-never-imports-other-adapters', HTTP, [...ENGINE, MCP, RAILS], 'The HTTP adapter reaches the engine through the ports of the features.'),
    adapterRule('engine-never-imports-other-adapters', ENGINE, [HTTP, MCP, RAILS], 'src/temporal/, workflows/ and activities/ are one adapter; they never import the others.'),
    adapterRule('mcp-never-imports-other-adapters', MCP, [HTTP, ...ENGINE, RAILS], 'The MCP tool server talks to the service over its API.'),
    adapterRule('rails-never-import-other-adapters', RAILS, [HTTP, ...ENGINE, MCP], 'A rail translates into the authorize and capture services, nothing else.'),
    {
      name: 'rails-never-import-each-other',
      comment: 'One folder per rail, each standing alone.',
      severity: 'error',
      from: { path: '^src/rails/([^/]+)/' },
      to: { path: '^src/rails/', pathNot: '^src/rails/$1/' },
    },
    {
      name: 'workflows-import-only-activity-types',
      comment: 'Workflow code is bundled apart and must stay deterministic: activities are reached through proxyActivities, with `import type`.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: '^activities/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'nothing-imports-the-top',
      comment: 'Process composition and the command line are the top: they import everything and nothing imports them.',
      severity: 'error',
      from: { pathNot: TOP },
      to: { path: TOP },
    },
    {
      name: 'no-cycles-among-features',
      comment: 'Features form layers: a feature imports only features below it, never one that imports it back.',
      severity: 'error',
      scope: 'folder',
      from: { path: FEATURE_FOLDER },
      to: { path: FEATURE_FOLDER, circular: true },
    },
    {
      name: 'no-unresolvable-imports',
      comment: 'An import the checker cannot resolve is an import it cannot check.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // swc reads the TypeScript (TypeScript 7 has no JS API to lend) and marks `import type` as type-only.
    parser: 'swc',
    // Folder-level rules (the cycles among features) need the folders aggregated.
    metrics: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^src/client/openapi-types\\.ts$', '^src/client/dashboard/'] },
    moduleSystems: ['es6'],
  },
};
