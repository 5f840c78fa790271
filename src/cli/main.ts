import { DataDirInUseError } from '../db/data-dir-lock.js';
import { ConfigError, type Config } from '../kernel/config.js';
import { AppError } from '../kernel/errors.js';
import { ListenError } from '../kernel/listen.js';
import type { ServerKeys } from '../server-keys.js';
import { accountInput, reportMonth } from './arguments.js';
import { parseCommand, parseSubcommand, USAGE, UsageError } from './commands.js';

// A command's module (and with it the service) is imported only once its arguments are good, so
// `--help` and a refused argument answer without loading, or compiling, the rest of the code.

/** Set once the configuration is read, so a failure can be described in its terms. */
let loadedConfig: Config | undefined;

async function serverSetup(): Promise<{ config: Config; serverKeys: ServerKeys }> {
  const [{ loadConfig }, { loadServerKeys }, { useAuditHmacKey }, { useEncryptionKey }] = await Promise.all([
    import('../config.js'),
    import('../server-keys.js'),
    import('../kernel/audit-key.js'),
    import('../kernel/encryption-key.js'),
  ]);
  const config = loadConfig(process.env);
  loadedConfig = config;
  // Every command but mcp reads or writes the database, audit records and webhook secrets included
  // (and `migrate` may re-seal the one and seal the other).
  const serverKeys = await loadServerKeys(config);
  useAuditHmacKey(serverKeys.auditHmac);
  useEncryptionKey(serverKeys.idempotency);
  return { config, serverKeys };
}

/** Entry point of the `spend-auth` bin. Options are checked (and `--help` answered) before anything else happens. */
export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  try {
    if (!command || command === 'help' || command === '--help' || command === '-h') {
      process.stdout.write(USAGE);
      return;
    }
    switch (command) {
      case 'mcp':
        if (parseCommand('mcp', args)) await (await import('./mcp.js')).mcpCommand();
        return;
      case 'serve':
      case 'worker':
      case 'dev': {
        const values = parseCommand(command, args);
        if (!values) return;
        const { config, serverKeys } = await serverSetup();
        const { processCommand } = await import('./serve.js');
        await processCommand(command, values, config, serverKeys);
        return;
      }
      case 'migrate': {
        if (!parseCommand('migrate', args)) return;
        const { config, serverKeys } = await serverSetup();
        const [{ withDatabase }, { migrateBound }] = await Promise.all([import('./database.js'), import('../process/migrations.js')]);
        const applied = await withDatabase(config, serverKeys, ({ db }) => migrateBound(db, serverKeys));
        process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date.\n');
        return;
      }
      case 'accounts': {
        const values = parseSubcommand('accounts', 'accounts create', args);
        if (!values) return;
        const input = accountInput(values);
        const { config, serverKeys } = await serverSetup();
        await (await import('./accounts.js')).accountsCommand(config, serverKeys, input);
        return;
      }
      case 'usage': {
        const values = parseSubcommand('usage', 'usage report', args);
        if (!values) return;
        const month = reportMonth(values);
        const { config, serverKeys } = await serverSetup();
        await (await import('./usage-report.js')).usageCommand(config, serverKeys, month, values.json === true);
        return;
      }
      case 'temporal': {
        const values = parseSubcommand('temporal', 'temporal setup', args);
        if (values) await (await import('./temporal-setup.js')).temporalSetupCommand((await serverSetup()).config, values.json === true);
        return;
      }
      default:
        throw new UsageError(`Unknown command: ${command}`, USAGE);
    }
  } catch (err) {
    if (err instanceof ListenError || err instanceof DataDirInUseError) {
      process.stderr.write(`spend-auth: ${err.message}\n`);
      process.exit(1);
    }
    if (err instanceof ConfigError || err instanceof UsageError || err instanceof AppError || (await pendingMigrations(err))) {
      process.stderr.write(`spend-auth: ${(err as Error).message}\n`);
      if (err instanceof UsageError && err.usage) process.stderr.write(err.usage);
      process.exit(err instanceof ConfigError ? 78 : 2);
    }
    process.stderr.write(`spend-auth: ${await failureLine(err)}\n`);
    // The stack is for whoever debugs the service, not for every user of the command.
    if (loadedConfig && ['debug', 'trace'].includes(loadedConfig.logLevel) && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  }
}

/** A command that found the database behind the code (imported here: a usage error needs none of it). */
async function pendingMigrations(err: unknown): Promise<boolean> {
  const { PendingMigrationsError } = await import('../process/migrations.js');
  return err instanceof PendingMigrationsError;
}

/** Any other failure as one line: the database's in its own terms, anything else by its message. */
async function failureLine(err: unknown): Promise<string> {
  const { describeDatabaseError } = await import('../db/connect.js');
  const described = describeDatabaseError(err, loadedConfig?.databaseUrl);
  if (described) return described;
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim() || 'unknown error';
  return `${message} (LOG_LEVEL=debug shows the stack)`;
}
