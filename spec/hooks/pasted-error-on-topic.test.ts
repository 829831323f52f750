/**
 * A learning about the very problem a prompt pastes the error of is given whole, though it holds
 * under half of that error's words: a long error says much that no note repeats (a driver's whole
 * "is the server running on host ... accepting TCP/IP connections" line), and the note names the
 * problem by its own words (the port, the driver). The second case is a known fault of the
 * pasted-error rule (hooks/pasted-errors.ts coversFewPastedErrors), written as failing until it reads it.
 */
import { describe, it, expect } from '@jest/globals';
import { wholeLearnings } from '../../hooks/registry.js';
import { note } from '../helpers/notes.js';
import { scored } from '../operators/states.js';
import type { ScoredCandidate } from '../../core/types.js';

const render = (list: ScoredCandidate[]): string => list.map((c) => `- **[${c.note.key}]** ${c.note.title}`).join('\n');
const ids = (list: ScoredCandidate[]): string[] => list.map((c) => c.note.key);

describe('a learning on the problem of a long pasted error', () => {
  it('is given whole when the error says more than the note repeats (it holds a third of its words)', () => {
    const port = scored(
      note(
        { id: 'dev-postgres-port', title: 'Local Postgres for development listens on 5433, not 5432' },
        'Postgres runs in Docker on host port 5433. Any command against the local database (psql, createdb, psycopg2 DSNs): add `-p 5433`.',
      ),
      0.9,
      0.9,
    );
    const prompt =
      'getting `psycopg2.OperationalError: could not connect to server: Connection refused. Is the server running on host "localhost" (127.0.0.1) and accepting TCP/IP connections on port 5432?` when I run the tests';
    expect(ids(wholeLearnings([port], render, 0.3, new Set(), prompt).kept)).toEqual(['dev-postgres-port']);
  });

  it.failing("is given whole when the error is the tool's generic wording around the failing step", () => {
    const alpine = scored(
      note(
        { id: 'docker-pip-alpine', title: 'Docker builds: the pip install step fails on Alpine' },
        'The base image is python:3.12-alpine; wheels for psycopg and numpy need build deps there: use python:3.12-slim instead.',
      ),
      0.9,
      0.9,
    );
    const prompt =
      'docker build dies with `failed to solve: process "/bin/sh -c pip install -r requirements.txt" did not complete successfully: exit code: 1`';
    expect(ids(wholeLearnings([alpine], render, 0.3, new Set(), prompt).kept)).toEqual(['docker-pip-alpine']);
  });
});
