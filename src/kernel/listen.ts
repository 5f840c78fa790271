import type { Server } from 'node:http';

/** The HTTP port could not be bound; the message says why and what to change. */
export class ListenError extends Error {
  override name = 'ListenError';
}

/** One line for an operator: what went wrong when binding `host:port`, and the setting to change. */
export function listenErrorMessage(err: unknown, port: number, host: string, portVariable = 'PORT'): string {
  const code = (err as { code?: string }).code;
  if (code === 'EADDRINUSE') return `port ${port} on ${host} is already in use (another spend-auth, or another program): stop it or set ${portVariable} to a free port`;
  if (code === 'EACCES') return `no permission to listen on port ${port} on ${host} (ports below 1024 need privileges): set ${portVariable} to 1024 or above`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return `cannot listen on ${host}: it is not an address of this machine; set HOST to one of its addresses, 127.0.0.1 or 0.0.0.0`;
  }
  return `cannot listen on port ${port} on ${host}: ${(err as Error).message}`;
}

/** Stops listening at once: connections still open (a kept-alive client's) are closed, not waited for. */
export function closeServerNow(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
