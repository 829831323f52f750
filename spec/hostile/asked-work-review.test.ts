/**
 * Hostile review of the kinds of work a prompt asks for (operators/action/asked-work.ts): an index or
 * a column that is no database's is no migration work.
 */
import { describe, it, expect } from '@jest/globals';
import { askedWork } from '../../operators/action/asked-work.js';

const work = (prompt: string): string[] => [...askedWork(prompt)].sort();

describe('an index or a column asked for', () => {
  it("is migration work for a database's", () => {
    expect(work('add an index on deliveries.courier_id, the query does a seq scan')).toEqual(['migration']);
    expect(work('add a rating column to deliveries and a PATCH endpoint')).toEqual(['migration']);
  });

  it("is none for a search engine's index, a grid's, a document's or a CSV's column", () => {
    expect(work('add an index for products in Elasticsearch with the new analyzer')).toEqual([]);
    expect(work('create a search index for the help articles')).toEqual([]);
    expect(work('add a column to the markdown table in the README')).toEqual([]);
    expect(work('add a column to the orders grid for the courier name')).toEqual([]);
    expect(work('add a Status column to the admin DataTable')).toEqual([]);
    expect(work('add a column to the CSV export')).toEqual([]);
  });

  it('reads a long prompt of near misses quickly', () => {
    const prompt = 'add a column '.repeat(150) + 'x'.repeat(200);
    const started = performance.now();
    work(prompt);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
