import type { Config } from '../kernel/config.js';
import { engineSettings } from '../process/engine-settings.js';
import { engineFailureReason } from '../temporal/engine-status.js';

/** `temporal setup`: registers the search attributes and creates or updates the Schedules; safe to repeat. */
export async function temporalSetupCommand(config: Config, json: boolean): Promise<void> {
  const { setupTemporal } = await import('../temporal/worker.js');
  let report;
  try {
    report = await setupTemporal(engineSettings(config));
  } catch (err) {
    // TemporalSetupError says what to do; any other cause in a few words.
    const why = err instanceof Error && err.name === 'TemporalSetupError' ? err.message : engineFailureReason(err);
    throw new Error(`temporal setup against ${config.temporal.address} (namespace ${config.temporal.namespace}) failed: ${why}`);
  }
  if (json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return;
  }
  const sa = report.searchAttributes;
  process.stdout.write(
    `Namespace ${report.namespace}: search attributes ${sa.added.length ? `registered ${sa.added.join(', ')}` : 'already registered'}` +
      `${sa.added.length && sa.present.length ? ` (present: ${sa.present.join(', ')})` : ''}.\n` +
      Object.entries(report.schedules).map(([id, outcome]) => `Schedule ${id}: ${outcome}.\n`).join(''),
  );
}
