/**
 * Checks every import of src/, workflows/ and activities/ against the layers in
 * .dependency-cruiser.cjs (docs/architecture.md): prints each forbidden import with the name of
 * the rule it breaks and exits non-zero when there is one.
 *
 * dependency-cruiser's API rather than its command: the command refuses to start on Node 20 (its
 * `engines` ask for 22), while the library runs there; this script is the command, kept small.
 */
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';

const ROOTS = ['src', 'workflows', 'activities'];

const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
const result = await cruise(ROOTS, { ...options, validate: true, outputType: 'err' });
process.stdout.write(String(result.output));
process.exitCode = result.exitCode === 0 ? 0 : 1;
