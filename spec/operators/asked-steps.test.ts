/**
 * A prompt that asks for a git step or a kind of work is about the rules named for it (operators/lift-asked-steps.ts):
 * which steps a prompt asks for, which notes are named for one, and the relevance they get.
 */
import { describe, it, expect } from '@jest/globals';
import { lastValueFrom, of } from 'rxjs';
import { askedSteps, gitStepStem, gitStepsOf } from '../../operators/action/git-steps.js';
import { askedWork, nameWords, workOf } from '../../operators/action/asked-work.js';
import { asksFor } from '../../operators/action/requests.js';
import { stemsOf } from '../../operators/action/terms.js';
import { estimateRelevance, type EstimateRelevanceOptions } from '../../operators/estimate-relevance.js';
import { ASKED_STEP_SURE, ASKED_STEP_UNSURE } from '../../operators/lift-asked-steps.js';
import { queryTerms } from '../../core/stems.js';
import { initialState } from '../../core/state.js';
import { note } from '../helpers/notes.js';

const steps = (prompt: string): string[] => [...askedSteps(prompt)].sort();

describe('askedSteps', () => {
  it('reads the git steps a prompt asks for, in any case, at the start of a request', () => {
    expect(steps('commit all of this and open a PR against main')).toEqual(['commit', 'pr']);
    expect(steps('Looks good, Commit it with a decent message')).toEqual(['commit']);
    expect(steps('branch is pushed, open the pull request for it')).toEqual(['pr']);
    expect(steps('we should open a draft PR for this')).toEqual(['pr']);
    expect(steps('rebase onto main please')).toEqual([gitStepStem('rebase')]);
  });

  it('reads no step a prompt only reports or mentions, and no merge, tag or revert', () => {
    expect(steps('branch is pushed and CI is green')).toEqual([]);
    expect(steps('fix the commit message parser')).toEqual([]);
    expect(steps('the commit-msg hook fails on every run')).toEqual([]);
    expect(steps('merge these two configs and tag the users by plan')).toEqual([]);
    expect(steps('revert the change to foo.go')).toEqual([]);
  });
});

describe('askedSteps, words of other worlds', () => {
  it('reads no git step from a push notification or a commit of offsets or a transaction', () => {
    expect(steps('Push notifications stopped arriving on iOS after the upgrade')).toEqual([]);
    expect(steps('how to push a notification to the phone')).toEqual([]);
    expect(steps('the consumer fails to commit offsets after a rebalance')).toEqual([]);
    expect(steps('we need to commit the transaction before the publish')).toEqual([]);
    expect(steps('push the branch and open a PR')).toEqual(['pr', 'push']);
    expect(steps('we need to commit this before lunch')).toEqual(['commit']);
  });
});

describe('gitStepsOf', () => {
  it('names a note for a step its name holds only when its text speaks of git with another word', () => {
    const named = (name: string, text: string): string[] => [...gitStepsOf(stemsOf(name.replace(/-/g, ' ')), stemsOf(text))];
    expect(named('commit-message-format', 'Subject type(scope); Refs from the branch name')).toEqual(['commit']);
    expect(named('push-notifications-apns', 'Renew the push certificate before it expires')).toEqual([]);
    expect(named('kafka-commit-offsets', 'Consumers commit offsets after the write')).toEqual([]);
    expect(named('PR descriptions need a Testing section', 'When opening a PR (`gh pr create`) the body has')).toEqual(['pr']);
  });
});

describe('the asked-step lift', () => {
  const weigh: EstimateRelevanceOptions['weigh'] = (stems) => ({
    live: 40,
    df: new Map(stems.map((s) => [s, 3])),
    info: new Map(stems.map((s) => [s, 0.3])),
  });
  const memory = (name: string, description: string, body: string) =>
    note({ id: undefined, name, description, metadata: { type: 'feedback' } }, body, `documents/${name}.md`);
  const notes = [
    memory('review-fixup-commits', 'Once a PR has review comments, answer them with fixup! commits', 'No rebase.'),
    memory(
      'commit-message-format',
      'Commits use Conventional Commits with a scope',
      'Refs from the branch name.\n\n**How to apply:** Every commit I create.',
    ),
    memory('push-notifications-apns', 'APNs push certificates expire yearly', 'Renew the push certificate.'),
    memory('go-test-style', 'Go tests are table-driven with t.Run', 'Use testify require; shared fixture in `internal/testkit`.'),
    memory('rust-tests', 'Rust tests run with cargo nextest', 'Never plain cargo test.'),
    memory('logging-privacy', 'Never log event payloads or API keys', 'Log ids and counts.'),
    memory(
      'gradle-version-catalog',
      'Versions go in gradle/libs.versions.toml; modules use libs.* aliases',
      'Never hard-code a version string.\n\n**How to apply:** Adding, upgrading or removing any dependency or plugin.',
    ),
    memory(
      'minio-clock-skew',
      'Local S3 tests fail with RequestTimeTooSkewed after the laptop slept',
      'Restart the VM.\n\n**How to apply:** Any S3 signature error in local runs — check the VM clock before touching credentials.',
    ),
    memory(
      'liveness-probes',
      'Liveness probes never check the database',
      'Restarts cascade.\n\n**How to apply:** Adding database checks to a probe.',
    ),
  ];
  const bugFix = note(
    { title: 'Flaky vitest tests from fake timers', learning_type: 'bug-fix' },
    'Await the promise before advancing timers.',
  );

  async function estimates(query: string, among = notes): Promise<Record<string, { p: number; source: string }>> {
    const candidates = among.map((n, i) => ({ note: n, rrf: 1 / (61 + i), evidence: 1, ranks: { bm25: i + 1 } }));
    const s = await lastValueFrom(
      of({ ...initialState(query, []), candidates }).pipe(
        estimateRelevance({ terms: queryTerms(query), weigh, dateWindow: false, limit: 10 }),
      ),
    );
    return Object.fromEntries(among.map((n) => [n.frontmatter['name'] as string, s.relevance.get(n.key)!]));
  }
  const relevance = async (query: string): Promise<Record<string, number>> =>
    Object.fromEntries(Object.entries(await estimates(query)).map(([k, e]) => [k, e.p]));

  it('gives the note most about the asked step a sure relevance, the others at most a pointer', async () => {
    const r = await relevance('commit all of this');
    expect(r['commit-message-format']).toBe(ASKED_STEP_SURE);
    expect(r['review-fixup-commits']).toBe(ASKED_STEP_UNSURE);
    expect(r['push-notifications-apns']).toBeLessThan(0.3);
  });

  it('lifts, per kind of work asked for, the rule that shares most of the rest of the prompt', async () => {
    const r = await relevance('write tests for ParseTenantHeader in internal/auth');
    expect(r['go-test-style']).toBe(ASKED_STEP_SURE);
    expect(r['rust-tests']).toBe(ASKED_STEP_UNSURE);
    expect((await relevance('add some debug logging to the batch handler'))['logging-privacy']).toBe(ASKED_STEP_SURE);
  });

  it('lifts a rule whose How to apply says when it applies, from that clause only', async () => {
    const r = await relevance('pull in resilience4j for the retries in the norrland client');
    expect(r['gradle-version-catalog']).toBe(ASKED_STEP_SURE);
    // "before touching credentials" is what to do, after the dash: it says nothing of when.
    const e = await estimates('rotate the stripe api keys in the vault');
    expect(e['minio-clock-skew']!.source).not.toBe('asked-step');
    // A rule named for the work comes first; one whose How to apply alone names it is then no second guess.
    const policy = memory('new-dependency-policy', 'Ask before adding a library', 'Licence check in review.');
    const both = await estimates('pull in resilience4j for the retries in the norrland client', [...notes, policy]);
    expect(both['new-dependency-policy']!.p).toBe(ASKED_STEP_SURE);
    expect(both['gradle-version-catalog']!.source).not.toBe('asked-step');
    // "checks" in a sentence is no request for the checks before a change is done, as in a name.
    expect([...workOf(nameWords('precommit-checks'))]).toEqual(['verify']);
    expect((await estimates('make sure this is all green'))['liveness-probes']!.source).not.toBe('asked-step');
  });

  it('lifts no note that states a problem met once rather than a rule', async () => {
    const candidates = [bugFix].map((n) => ({ note: n, rrf: 1 / 61, evidence: 1, ranks: { bm25: 1 } }));
    const query = 'write a unit test for this function';
    const s = await lastValueFrom(
      of({ ...initialState(query, []), candidates }).pipe(
        estimateRelevance({ terms: queryTerms(query), weigh, dateWindow: false, limit: 10 }),
      ),
    );
    expect(s.relevance.get(bugFix.key)!.source).not.toBe('asked-step');
  });

  it('lifts nothing when the prompt asks for no git step, or for one no note is named for', async () => {
    for (const query of ['why does the commit message parser reject scopes', 'push the certificate renewal through'])
      for (const e of Object.values(await estimates(query))) expect(e.source).not.toBe('asked-step');
  });
});

describe('askedWork', () => {
  const work = (prompt: string): string[] => [...askedWork(prompt)].sort();
  it('reads the kind of work a request asks for, a few words after its verb', () => {
    expect(work('write tests for ParseTenantHeader in internal/auth')).toEqual(['test']);
    expect(work('add some debug logging to the v2 Batch handler')).toEqual(['log']);
    expect(work('find a decent HyperLogLog library for Go and wire it into queryd')).toEqual(['dependency']);
    expect(work('write the migration that turns the labels column into JSON')).toEqual(['migration']);
    expect(work('Add a nightly CI run of the soak test')).toEqual(['ci']);
    expect(work('deploy the fix to staging')).toEqual(['deploy']);
    expect(work('bump ingestd to 12 replicas on prod-eu1')).toEqual(['deploy']);
    expect(work('scale queryd to 6 pods')).toEqual(['deploy']);
    expect(work('dump the raw payload into the logs and skip it')).toEqual(['log']);
    expect(work('and log the tenant name when it fails')).toEqual(['log']);
    expect(work('give me a one-liner I can paste myself')).toEqual(['shell']);
    expect(work('rip it out of the proto')).toEqual(['proto']);
    expect(work('print the incoming request headers in the auth middleware so I can figure out why')).toEqual(['log']);
    expect(work('thinking of an interface so the consumer tests can use a fake')).toEqual(['mock']);
    expect(work('what are the actual steps to get it to prod?')).toEqual(['deploy']);
    expect(work("so we'd ship it to prod on Dec 1, right?")).toEqual(['deploy']);
  });

  it('reads none from a prompt that only reports or mentions the work', () => {
    expect(work('the tests fail on main since this morning')).toEqual([]);
    expect(work('deploy went out at 14:02 and the api froze')).toEqual([]);
    expect(work('why does the logger drop lines under load')).toEqual([]);
    expect(work('add error handling here')).toEqual([]);
    expect(work('the log shows nothing after the deploy')).toEqual([]);
    expect(work('the last prod deploy broke the api')).toEqual([]);
  });

  it("reads a ticket for the team's tracker and the team's procedure; not a problem called an issue", () => {
    expect(work("make a ticket for the flaky TestBatcherFlush so we don't lose track of it")).toEqual(['ticket']);
    expect(work('file a Linear issue for the retry bug')).toEqual(['ticket']);
    expect(work("redpanda brokers on prod-eu1 at 92% disk and climbing. what's the procedure?")).toEqual(['runbook']);
    expect(work('fix the issue with the retry path')).toEqual([]);
    expect(work('the ticket says the export is slow, why?')).toEqual([]);
    expect(work('nobody asked to follow the runbook')).toEqual([]);
    expect([...workOf(nameWords('linear-tracker'))]).toEqual(['ticket']);
    expect([...workOf(nameWords('runbooks'))]).toEqual(['runbook']);
    expect([...workOf(nameWords('linear-backoff'))]).toEqual([]);
  });

  it("reads no runbook from a database's stored procedure, and no tracker from a ticketing product's tickets", () => {
    expect(work('write a stored procedure for the monthly totals')).toEqual([]);
    expect(work('check the stored procedure get_orders for the N+1')).toEqual([]);
    expect([...workOf(nameWords('stored-procedures'))]).toEqual([]);
    expect([...workOf(nameWords('procedure-call-timeouts'))]).toEqual([]);
    expect(work('fix the ticket price rounding for group bookings')).toEqual([]);
    expect(work('add a ticket purchase endpoint')).toEqual([]);
    expect(work('open tickets count is wrong on the dashboard')).toEqual([]);
    expect([...workOf(nameWords('ticket-price-rounding'))]).toEqual([]);
    expect(work('make a ticket for the flaky test, then fix it')).toContain('ticket');
    expect(work('open a Jira ticket.')).toEqual(['ticket']);
    expect(work('follow the runbook for disk pressure')).toEqual(['runbook']);
  });

  it('reads a schema change as migration work, a bug to file as a ticket, shopping for a library as a dependency', () => {
    expect(work('add an index on deliveries.courier_id, the query does a seq scan')).toEqual(['migration']);
    expect(work('add a rating column to deliveries and a PATCH endpoint')).toEqual(['migration']);
    expect(work('file a bug: double tapping Place order creates two orders')).toEqual(['ticket']);
    expect(work('log a bug for the flaky upload test')).toEqual(['ticket']);
    expect(work('is there a decent ruby library for validating phone numbers? if so hook it in')).toEqual(['dependency']);
    expect(work('fix the bug in the retry path')).toEqual([]);
    expect(work('which index does the orders query use?')).toEqual([]);
    expect([...workOf(nameWords('jira-cw'))]).toEqual(['ticket']);
  });

  it('reads no logging from logging a user in or out', () => {
    expect(work('then log the user out when the token expires')).toEqual([]);
    expect(work('and log the current user back in after the refresh')).toEqual([]);
    expect(work('log the tenant id when the session times out')).toEqual(['log']);
  });
});

describe('requests that are no requests', () => {
  const work = (prompt: string): string[] => [...askedWork(prompt)].sort();
  it('reads no work or step a prompt denies or reports as failing', () => {
    expect(work('no need to add logging here')).toEqual([]);
    expect(work('why does CI fail to run tests')).toEqual([]);
    expect([...askedSteps('no need to push yet')]).toEqual([]);
    expect([...askedSteps('we need to commit this before lunch')]).toEqual(['commit']);
  });

  it('reads no work or step a prompt asks to leave undone ("don\'t want you to", "try not to")', () => {
    expect([...askedSteps("I don't want you to commit yet, just show me the diff")]).toEqual([]);
    expect([...askedSteps("you don't need to push, I'll do it")]).toEqual([]);
    expect(work('try not to add any new dependencies for this')).toEqual([]);
    expect(work('please make sure not to add logging of the token')).toEqual([]);
    expect(work('no one asked to deploy it, just check the Dockerfile builds')).toEqual([]);
    expect([...askedSteps("don't forget to push when you're done")]).toEqual(['push']);
  });

  it('reads debug logging only from printing to see what happens, not from a dump or a print for use', () => {
    expect(work('dump the prod database so I can restore it on my laptop')).toEqual([]);
    expect(work('add a button to print the invoice so I can hand it to customers')).toEqual([]);
    expect(work('print the request headers so I can figure out why auth fails')).toEqual(['log']);
    expect(work('dump the parsed config so we can see which value wins')).toEqual(['log']);
  });

  it('reads no mock from a design mock-up or from type stubs', () => {
    expect(work('the designer sent a mocked up screen, build the component from it')).toEqual([]);
    expect(work('turn this mock up into a React page')).toEqual([]);
    expect(work('add type stubs for the payments library')).toEqual(['dependency']);
    expect(work('stub the clock in the retry tests')).toEqual(['mock']);
  });

  it('reads no work from words of other worlds: reading logs, an API spec, read replicas, a data pipeline', () => {
    expect(work('find the error in the logs of the ingestd pod')).toEqual([]);
    expect(work('dump the logs of the pod')).toEqual([]);
    expect(work('update the OpenAPI spec')).toEqual([]);
    expect(work('set up postgres read replicas')).toEqual([]);
    expect(work('build a data pipeline from kafka to parquet')).toEqual([]);
    expect(work('update the approval workflow for refunds')).toEqual([]);
    expect(work('write a shell script that rotates old files')).toEqual([]);
    expect(work('push notifications to the phone in production')).toEqual([]);
    expect(work('print the report as a table')).toEqual([]);
    expect(work('we use vi.useFakeTimers in that file')).toEqual([]);
    expect(work('no need to mock anything there')).toEqual([]);
    expect(work('refactor the user service to use dependency injection')).toEqual([]);
    expect(work('add a dependency on zod for the parser')).toEqual(['dependency']);
  });

  it('names a note for work by the whole words of its name: `depends_on` is no dependency, `catalog` no log', () => {
    expect([...workOf(nameWords('docker compose depends_on does not wait for Postgres'))]).toEqual([]);
    expect([...workOf(nameWords('catalog-sync'))]).toEqual([]);
    expect([...workOf(nameWords('new-dependency-policy'))]).toEqual(['dependency']);
    expect([...workOf(nameWords('Rust tests run with nextest'))]).toEqual(['test']);
  });
});

describe('asksFor', () => {
  it('applies the denial check whatever flags the pattern was written with', () => {
    for (const re of [/\b(?<verb>add)\s+logging\b/i, /\b(?<verb>add)\s+logging\b/dgi]) {
      expect(asksFor(re, 'please add logging here')).toBe(true);
      expect(asksFor(re, 'no need to add logging here')).toBe(false);
    }
  });
});
