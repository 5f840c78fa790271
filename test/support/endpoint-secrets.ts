import type { Db } from '../../src/db/database.js';
import { endpointSecretCipher, endpointSecretScope } from '../../src/webhooks/endpoint-secret.js';
import { TEST_IDEMPOTENCY_KEY } from './server-keys.js';

/**
 * An endpoint's secrets as stored (sealed) and as the service opens them with the test key:
 * `secret`/`previous` are undefined when the stored text does not open, null when none is stored.
 */
export async function storedEndpointSecrets(db: Db, id: string) {
  const row = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const cipher = endpointSecretCipher(TEST_IDEMPOTENCY_KEY);
  const scope = endpointSecretScope(row);
  return {
    row,
    secret: cipher.open(row.secret_sealed, scope),
    previous: row.previous_secret_sealed === null ? null : cipher.open(row.previous_secret_sealed, scope),
  };
}
