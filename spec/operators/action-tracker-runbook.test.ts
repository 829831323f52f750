/**
 * Two kinds of work read from a run: filing an issue (`gh issue create`) reaches the memory that says
 * where the team tracks work; a command that changes something in production reaches the runbooks
 * memory, and a diagnosis there (`kubectl get`) does not.
 */
import { describe, it, expect } from '@jest/globals';
import { ids, kb, memory } from '../helpers/action.js';

const notes = kb({
  'documents/jira.md': memory(
    'jira-plt',
    'Work is tracked in Jira project PLT, not on GitHub',
    'The `jira` CLI is logged in.\n\n**How to apply:** "make a ticket", "file a bug".',
    'reference',
  ),
  'documents/runbooks.md': memory(
    'runbooks-and-on-call',
    'Ops runbooks are in Notion "Plotline Ops"; PagerDuty service plotline-api',
    'Follow the runbook.\n\n**How to apply:** prod incidents and ops procedures.',
    'reference',
  ),
});
const run = (command: string): string[] => ids(notes, 'Bash', { command }, '/home/dev/plotline');

describe('filing an issue', () => {
  it('reaches the tracker memory, whatever tracker the run uses', () => {
    expect(run('gh issue create --title "Flaky e2e" --body "Failed 3 times"')).toEqual(['jira-plt']);
  });

  it('is not listing or viewing issues', () => {
    expect(run('gh issue list --label flaky')).toEqual([]);
    expect(run('gh issue view 412')).toEqual([]);
  });
});

describe('a command against production', () => {
  it('that changes something reaches the runbooks memory ("on-call" is no remote call)', () => {
    expect(run('redis-cli -u "$PROD_REDIS_URL" DEL bull:imports:stalled-check')).toEqual(['runbooks-and-on-call']);
    expect(run('rpk topic alter-config events.raw --set retention.ms=86400000 -X brokers=redpanda-0.prod-eu1.internal:9092')).toEqual([
      'runbooks-and-on-call',
    ]);
  });

  it('that only diagnoses, or that changes something elsewhere, does not', () => {
    expect(run('kubectl --context prod-eu1 -n plotline get pods -o wide')).toEqual([]);
    expect(run('redis-cli -u "$STAGING_REDIS_URL" DEL bull:imports:stalled-check')).toEqual([]);
    expect(run('pnpm --filter @plotline/web build:production')).toEqual([]);
    expect(run('git commit -m "tune prod queue timeouts"')).not.toContain('runbooks-and-on-call');
    expect(run('git push origin prod')).not.toContain('runbooks-and-on-call');
  });
});

describe('shipping a release', () => {
  const deploys = kb({
    'documents/deploys.md': memory(
      'deploy-process',
      'Prod goes out only through the deploy-prod workflow, run by the release captain',
      'Hand the sha to the release captain.\n\n**How to apply:** Any deploy.',
    ),
  });
  const ship = (command: string): string[] => ids(deploys, 'Bash', { command }, '/home/dev/pay');

  it('is deploy work: a deploy subcommand, or rolling a service to new code', () => {
    expect(ship('flyctl deploy -a pay-api')).toEqual(['deploy-process']);
    expect(ship('aws ecs update-service --cluster pay-prod --service api --task-definition api:412')).toEqual(['deploy-process']);
    expect(ship('kubectl -n pay set image deployment/api api=registry/api:9f1c2e')).toEqual(['deploy-process']);
  });

  it('is not looking at a deployment (`kubectl get deploy`)', () => {
    expect(ship('kubectl --context dev -n pay get deploy api -o wide')).toEqual([]);
  });
});
