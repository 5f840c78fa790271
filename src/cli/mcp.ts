import { loadMcpConfig } from '../config.js';
import { ConfigError } from '../kernel/config.js';

/**
 * The MCP tool server is a client of a running service: it needs only its two variables, not the
 * service's configuration. stdout belongs to the protocol, so a bad setting is reported on stderr
 * and exits with code 1 before anything is written there.
 */
export async function mcpCommand(): Promise<void> {
  let mcpConfig;
  try {
    mcpConfig = loadMcpConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`spend-auth mcp: ${err.message}\n`);
    process.exit(1);
  }
  const { runMcpServer } = await import('../mcp/server.js');
  await runMcpServer(mcpConfig);
}
