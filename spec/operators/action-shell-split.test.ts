/**
 * How a shell line is cut into the commands it runs (operators/action/shell-split.ts, tool-call.ts
 * shellCommands): operators inside quotes are text, and what `ssh host '…'` or `sh -c '…'` runs is
 * a command too.
 */
import { describe, it, expect } from '@jest/globals';
import { shellCommands } from '../../operators/action/index.js';
import { commandParts } from '../../operators/action/shell-split.js';

describe('commands of a shell line', () => {
  it('does not cut a quoted argument at the operators it holds', () => {
    expect(shellCommands('psql "$DB" -c "CREATE INDEX CONCURRENTLY i ON t (c); SELECT 1"')).toEqual([
      ['psql', '$DB', '-c', 'CREATE INDEX CONCURRENTLY i ON t (c); SELECT 1'],
    ]);
    expect(shellCommands('gcloud secrets list --format="value(name)"')).toEqual([['gcloud', 'secrets', 'list', '--format=value(name)']]);
    expect(shellCommands("git commit -m 'fix: a; b' && git push")).toEqual([
      ['git', 'commit', '-m', 'fix: a; b'],
      ['git', 'push'],
    ]);
  });

  it('still cuts at operators outside quotes, and closes a quote a line leaves open', () => {
    expect(commandParts('a | b; c && d')).toEqual(['a ', ' b', ' c ', ' d']);
    // A heredoc line with an apostrophe does not swallow the next lines.
    expect(commandParts("don't stop\nnpm test; npm run lint")).toEqual(["don't stop", 'npm test', ' npm run lint']);
  });

  it('reads what ssh runs on the host and what a shell started with -c runs', () => {
    expect(shellCommands("ssh -p 2222 mac 'cd ios && xcrun altool --upload-app -f a.ipa'").slice(1)).toEqual([
      ['cd', 'ios'],
      ['xcrun', 'altool', '--upload-app', '-f', 'a.ipa'],
    ]);
    expect(shellCommands("docker compose exec api sh -c 'printenv | grep STRIPE'").slice(1)).toEqual([['printenv'], ['grep', 'STRIPE']]);
    // ssh with no command runs nothing else.
    expect(shellCommands('ssh mac')).toEqual([['ssh', 'mac']]);
  });
});
