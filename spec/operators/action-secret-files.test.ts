/**
 * A call that handles secrets (operators/action/secret-files.ts): reading or printing a dotenv file
 * or a private key, or printing the environment, is what a rule named for secrets is about, though
 * the call only looks. Its example file, and a call that reads any other file, are not.
 */
import { describe, it, expect } from '@jest/globals';
import { ids, kb, memory } from '../helpers/action.js';
import { isSecretFile } from '../../operators/action/secret-files.js';

const notes = kb({
  'documents/secrets.md': memory(
    'secrets-handling',
    'Never print or paste secret values; check a key is set with grep -c',
    "Don't read, `cat` or `echo` the values into the session. `.env.example` is safe to read.",
  ),
  'documents/tests.md': memory('test-style', 'Tests are table-driven', 'Write table-driven tests with `t.Run`.'),
});

describe('a call that handles secrets', () => {
  it('gives the rule named for secrets for reading a dotenv file or a key, though the call only reads', () => {
    expect(ids(notes, 'Read', { file_path: '/home/dev/shop/.env' })).toEqual(['secrets-handling']);
    expect(ids(notes, 'Read', { file_path: '/home/dev/shop/.env.dev.local' })).toEqual(['secrets-handling']);
    expect(ids(notes, 'Bash', { command: 'cat ~/.dbt/profiles.yml ~/.snowflake/dev.p8' })).toEqual(['secrets-handling']);
    expect(ids(notes, 'Bash', { command: 'printenv | grep -i snowflake' })).toEqual(['secrets-handling']);
  });

  it('gives nothing for reading the example file, another file, or running a program under env', () => {
    expect(ids(notes, 'Read', { file_path: '/home/dev/shop/.env.example' })).toEqual([]);
    expect(ids(notes, 'Read', { file_path: '/home/dev/shop/src/env.ts' })).toEqual([]);
    expect(ids(notes, 'Bash', { command: 'env NODE_ENV=test npm test' })).not.toContain('secrets-handling');
    expect(ids(notes, 'Bash', { command: 'cat package.json' })).toEqual([]);
  });

  it('knows secret files by their names', () => {
    expect(['.env', 'app/.env.production', '~/.ssh/id_ed25519', 'certs/server.key', '.netrc'].every(isSecretFile)).toBe(true);
    expect(['.env.example', '.env.sample', 'id_ed25519.pub', 'keys.ts', 'environment.md'].some(isSecretFile)).toBe(false);
  });
});
