/**
 * Rewrites the settings table of docs/settings.md from the settings list (core/settings/settings.ts),
 * between its markers. Run `npm run docs:settings` after adding or changing a setting; a spec fails
 * while the page's table differs from the generated one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withSettingsTable } from '../core/settings/index.js';

// Run from dist/scripts/, so the repository is two folders up.
const page = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'settings.md');
const before = fs.readFileSync(page, 'utf8');
const after = withSettingsTable(before);
if (after !== before) fs.writeFileSync(page, after);
process.stdout.write(after === before ? 'docs/settings.md settings table is up to date\n' : 'docs/settings.md settings table rewritten\n');
