import fs from 'node:fs';
import path from 'node:path';

/**
 * The content of `file` under `dataDir`, written with `fresh()` on first use (mode 0600). When
 * another process creates it first, its content is used, so processes sharing DATA_DIR agree.
 */
export async function devKeyFile(dataDir: string, file: string, fresh: () => string | Promise<string>): Promise<string> {
  const full = path.join(dataDir, file);
  if (fs.existsSync(full)) return fs.readFileSync(full, 'utf8');
  const content = await fresh();
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(full, content, { mode: 0o600, flag: 'wx' });
    return content;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return fs.readFileSync(full, 'utf8');
  }
}
