/**
 * Hostile review of the shell reader and the secret-work reader (operators/action/shell-split.ts,
 * tool-call.ts, secret-files.ts): commands a line hides from a naive split, and calls that print
 * secrets without naming a dotenv file.
 */
import { describe, it, expect } from '@jest/globals';
import { shellCommands } from '../../operators/action/index.js';
import { isSecretFile } from '../../operators/action/secret-files.js';
import { nameWords, workOf } from '../../operators/action/asked-work.js';
import { ids, kb, memory } from '../helpers/action.js';

describe('commands of a shell line', () => {
  it('runs a command substitution inside double quotes', () => {
    expect(shellCommands('echo "token: $(cat ~/.netrc)"')).toContainEqual(['cat', '~/.netrc']);
    expect(shellCommands('echo "`cat .env`"')).toContainEqual(['cat', '.env']);
    // The double quotes go on after the substitution: an operator in them is still text.
    // A heredoc's commit message is the text of the message, and keeps its command.
    expect(shellCommands('git commit -m "$(cat <<\'EOF\'\nfix: a\nEOF\n)"')).toEqual([['git', 'commit', '-m', 'fix: a']]);
    expect(shellCommands('echo "$(date); a && b" && rm -rf dist')).toEqual([['date'], ['echo', '; a && b'], ['rm', '-rf', 'dist']]);
  });

  it('takes a backslashed quote or operator outside quotes for text', () => {
    expect(shellCommands("echo don\\'t && git push --force")).toContainEqual(['git', 'push', '--force']);
    expect(shellCommands('find . -name "*.log" -exec rm {} \\; && echo done').map((c) => c[0])).toEqual(['find', 'echo']);
  });

  it('reads the script of a shell that is not the whole line', () => {
    expect(shellCommands("cd app && bash -c 'npm publish'")).toContainEqual(['npm', 'publish']);
    expect(shellCommands("sh -c 'npm publish' && ls")).toContainEqual(['npm', 'publish']);
  });
});

describe('a call that handles secrets', () => {
  const notes = kb({
    'documents/secrets.md': memory(
      'secrets-handling',
      'Never print or paste secret values; check a key is set with grep -c',
      "Don't read, `cat` or `echo` the values into the session.",
    ),
    'documents/pw.md': memory('password-hashing', 'Passwords are hashed with argon2id', 'Use `argon2id` via `password_hash`.'),
  });

  it('prints the environment with env alone, printenv of a variable, or inside a container', () => {
    for (const command of ['env', 'env | sort', 'sudo env', 'printenv STRIPE_SECRET_KEY', 'docker compose exec api printenv'])
      expect([command, ids(notes, 'Bash', { command })]).toEqual([command, ['secrets-handling']]);
    expect(ids(notes, 'Bash', { command: 'echo "$(cat .env)"' })).toEqual(['secrets-handling']);
  });

  it('takes an example file with more parts to its name for an example', () => {
    expect(['.env.local.example', '.env.production.sample', 'app/.env.dev.template'].some(isSecretFile)).toBe(false);
    expect(['.env.local', '.env.production.bak'].every(isSecretFile)).toBe(true);
  });

  it("does not give a rule about the app's password feature for reading a dotenv file", () => {
    expect(ids(notes, 'Read', { file_path: '/home/dev/shop/.env' })).toEqual(['secrets-handling']);
    expect([...workOf(nameWords('password-reset-emails'))]).toEqual([]);
    expect([...workOf(nameWords('user-passwords'))]).toEqual(['secret']);
  });
});
