/**
 * A call that changes the project's own version is version work (operators/action/version-work.ts,
 * call-work.ts): the version line of a manifest replaced, or a command that bumps it; not a
 * dependency's version, a new manifest, a lockfile, or a command that only shows the version.
 */
import { describe, it, expect } from '@jest/globals';
import { readToolCall } from '../../operators/action/index.js';
import { callWork } from '../../operators/action/call-work.js';
import { ids, kb, memory } from '../helpers/action.js';

const edit = (file_path: string, old_string: string, new_string: string) =>
  callWork(readToolCall({ tool_name: 'Edit', tool_input: { file_path, old_string, new_string } })!, [file_path]).kinds;
const write = (file_path: string, content: string) =>
  callWork(readToolCall({ tool_name: 'Write', tool_input: { file_path, content } })!, [file_path]).kinds;
const run = (command: string) => callWork(readToolCall({ tool_name: 'Bash', tool_input: { command } })!, []).kinds;

describe('version work in a tool call', () => {
  it("reads the version line of a manifest replaced as version work, in each ecosystem's form", () => {
    expect(edit('src-tauri/tauri.conf.json', '"version": "1.10.3",', '"version": "1.11.0",')).toContain('version');
    expect(edit('package.json', '  "version": "2.3.0",\n  "private": true', '  "version": "2.4.0",\n  "private": true')).toContain(
      'version',
    );
    expect(edit('Cargo.toml', '[package]\nversion = "0.9.1"', '[package]\nversion = "0.10.0"')).toContain('version');
    expect(edit('android/app/build.gradle.kts', '        versionName = "4.2.0"', '        versionName = "4.3.0"')).toContain('version');
    expect(edit('ios/App.xcodeproj/project.pbxproj', 'MARKETING_VERSION = 2.1;', 'MARKETING_VERSION = 2.2;')).toContain('version');
  });

  it("reads no version work in a dependency's version, a new manifest, a lockfile, or another key", () => {
    expect(edit('package.json', '"react": "^18.2.0",', '"react": "^18.3.1",')).not.toContain('version');
    expect(edit('Cargo.toml', 'serde = { version = "1.0.190" }', 'serde = { version = "1.0.200" }')).not.toContain('version');
    expect(write('packages/new/package.json', '{\n  "name": "@acme/new",\n  "version": "0.1.0"\n}\n')).not.toContain('version');
    expect(edit('package-lock.json', '"version": "1.2.0",', '"version": "1.3.0",')).not.toContain('version');
    expect(edit('tauri.conf.json', '"productName": "Quill",', '"productName": "Quill Notes",')).not.toContain('version');
    expect(edit('docs/changelog.md', 'version = "1.0"', 'version = "1.1"')).not.toContain('version');
    // A dependency's own table or entry, a vendored copy, a line only re-spaced.
    expect(edit('Cargo.toml', '[dependencies.serde]\nversion = "1.0.100"', '[dependencies.serde]\nversion = "1.0.200"')).not.toContain(
      'version',
    );
    expect(edit('Chart.yaml', '  - name: postgresql\n    version: 12.1.0', '  - name: postgresql\n    version: 12.5.0')).not.toContain(
      'version',
    );
    expect(edit('node_modules/lodash/package.json', '"version": "4.17.20",', '"version": "4.17.21",')).not.toContain('version');
    expect(edit('package.json', '"version":"1.0.0",', '"version": "1.0.0",')).not.toContain('version');
  });

  it('reads a command that bumps the version, not one that shows it', () => {
    expect(run('npm version minor --no-git-tag-version')).toContain('version');
    expect(run('poetry version patch')).toContain('version');
    expect(run('cargo set-version 0.4.0')).toContain('version');
    expect(run('bump2version minor')).toContain('version');
    expect(run('npm version')).not.toContain('version');
    expect(run('poetry version')).not.toContain('version');
    expect(run('node --version')).not.toContain('version');
    // A redirection is the shell's, not what to bump to.
    expect(run('npm version 2>&1')).not.toContain('version');
    expect(run('poetry version > v.txt')).not.toContain('version');
  });

  it('gives a rule named for version bumps to a bump command, which only looks without what to bump to', () => {
    const notes = kb({
      'documents/bumps.md': memory(
        'no-manual-version-bumps',
        'Never bump the app version by hand; release-please bumps every manifest together',
        'release-please opens the release PR.',
      ),
    });
    expect(ids(notes, 'Bash', { command: 'npm version minor' })).toEqual(['no-manual-version-bumps']);
    expect(ids(notes, 'Bash', { command: 'poetry version patch' })).toEqual(['no-manual-version-bumps']);
    expect(ids(notes, 'Bash', { command: 'npm version' })).toEqual([]);
  });
});
