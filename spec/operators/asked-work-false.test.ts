/**
 * Prompts that ask for no check and handle no credential lift no rule named for one: a password as
 * a feature of the app (its field, its reset email, its strength meter), a value that "passes" to a
 * handler, and a rule named for another kind of verification or check (an email's, a pod's health).
 */
import { describe, it, expect } from '@jest/globals';
import { lastValueFrom, of } from 'rxjs';
import { askedWork, nameWords, workOf } from '../../operators/action/asked-work.js';
import { askedSteps } from '../../operators/action/git-steps.js';
import { estimateRelevance, type EstimateRelevanceOptions } from '../../operators/estimate-relevance.js';
import { ASKED_STEP_SURE } from '../../operators/lift-asked-steps.js';
import { queryTerms } from '../../core/stems.js';
import { initialState } from '../../core/state.js';
import { note } from '../helpers/notes.js';

const work = (prompt: string): string[] => [...askedWork(prompt)].sort();

describe('a password or a secret the app shows, not one the prompt handles', () => {
  it('asks for no credential work', () => {
    expect(work('add a show/hide toggle to the password field')).toEqual([]);
    expect(work('the forgot password email never arrives, can you look at the mailer?')).toEqual([]);
    expect(work('add a password strength meter to the signup form')).toEqual([]);
    expect(work("users can't reset their password, the link 404s")).toEqual([]);
    expect(work('rename the secrets tab in the admin UI to "Keys"')).toEqual([]);
    // Credentials the prompt does handle still are.
    expect(work('I have the Stripe API key and the webhook secret, where do they go?')).toEqual(['secret']);
    expect(work('put the database password in the deploy config')).toContain('secret');
  });
});

describe('a value that passes somewhere, not a check that passes', () => {
  it('asks for no check', () => {
    expect(work('verify the webhook signature before it passes the payload to the handler')).toEqual([]);
    expect(work('ensure the tenant flag passes through to the worker')).toEqual([]);
    // A check that passes still is one.
    expect(work('make sure the tests pass on CI')).toContain('verify');
    expect(work('check that it passes the linter')).toEqual(['verify']);
  });
});

describe('a rule named for another kind of verification or check', () => {
  it('is not named for checking a change before it is done', () => {
    expect([...workOf(nameWords('email-verification-flow'))]).toEqual([]);
    expect([...workOf(nameWords('k8s-health-checks'))]).toEqual([]);
    expect([...workOf(nameWords('verify-before-done'))]).toEqual(['verify']);
  });

  it('is not lifted by a prompt that asks for the checks', async () => {
    const weigh: EstimateRelevanceOptions['weigh'] = (stems) => ({
      live: 40,
      df: new Map(stems.map((s) => [s, 3])),
      info: new Map(stems.map((s) => [s, 0.3])),
    });
    const email = note(
      {
        id: undefined,
        name: 'email-verification-flow',
        description: 'Signup sends a verification link valid 24h',
        metadata: { type: 'project' },
      },
      'The link is signed with the app secret; resend is rate limited.',
      'documents/email-verification-flow.md',
    );
    const query = 'make sure this is all green before I push';
    const s = await lastValueFrom(
      of({ ...initialState(query, []), candidates: [{ note: email, rrf: 1 / 61, evidence: 1, ranks: { bm25: 1 } }] }).pipe(
        estimateRelevance({ terms: queryTerms(query), weigh, dateWindow: false, limit: 10 }),
      ),
    );
    expect(s.relevance.get(email.key)!.p).toBeLessThan(ASKED_STEP_SURE);
  });
});

describe('a git step named after an interjection, as what happened', () => {
  const steps = (prompt: string): string[] => [...askedSteps(prompt)].sort();
  // Known fault (requests.ts CLAUSE): an interjection opening the turn starts a request even when
  // the step word after it is the subject of a report. Failing until the clause reads it.
  it.failing('is no request for the step', () => {
    expect(steps('ok commit that')).toEqual(['commit']);
    expect(steps('thanks commit went through')).toEqual([]);
    expect(steps('ok rebase done, what next?')).toEqual([]);
    expect(steps('yes commit hooks are slow here')).toEqual([]);
  });
});
