/**
 * Rewrites the settings table of README.md from the settings list (core/settings/settings.ts), between its
 * markers. Run `npm run docs:settings` after adding or changing a setting; a spec fails while the
 * README's table differs from the generated one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withSettingsTable } from '../core/settings/index.js';

const readme = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'README.md');
const before = fs.readFileSync(readme, 'utf8');
const after = withSettingsTable(before);
if (after !== before) fs.writeFileSync(readme, after);
process.stdout.write(after === before ? 'README.md settings table is up to date\n' : 'README.md settings table rewritten\n');
