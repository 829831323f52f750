/**
 * An edit that brings in the call a note tells the agent to make (`tokio::task::spawn_blocking`), and
 * does nothing else, is following the note: no reminder. The note still applies to an edit that does
 * the work it warns about without that call, or that also writes something else.
 */
import { describe, it, expect } from '@jest/globals';
import { adoptedNames, adoptionOf, spanStances } from '../../operators/action/index.js';
import { ids, kb, memory } from '../helpers/action.js';

const BLOCKING = memory(
  'compactor-blocking',
  'Compactor rebalance storms came from CPU-heavy zstd work blocking tokio workers',
  [
    'Parquet encoding and zstd compression ran inside async tasks and blocked the tokio worker threads.',
    '',
    'Fix: CPU-heavy work goes through `tokio::task::spawn_blocking`. Never call `block_on` from async code.',
    '',
    '**How to apply:** New CPU-heavy steps in the compactor (compression, encoding) never run inline in an async fn.',
  ].join('\n'),
  'project',
);
const idx = kb({ 'project_compactor_blocking.md': BLOCKING });
const edit = (before: string, after: string): string[] =>
  ids(idx, 'Edit', { file_path: '/home/dev/skerry/compactor/src/writer.rs', old_string: before, new_string: after }, '/home/dev/skerry');

describe('an edit that adopts the call a note recommends', () => {
  it('needs no reminder of the note', () => {
    const before = '    let bytes = encode_row_group(rows)?;';
    expect(edit(before, '    let bytes = tokio::task::spawn_blocking(move || encode_row_group(rows)).await??;')).not.toContain(
      'compactor-blocking',
    );
  });

  it('still gets it when it adds CPU-heavy work inline', () => {
    const before = '    let bytes = encode_row_group(rows)?;';
    expect(edit(before, '    let bytes = zstd::encode_all(&encode_row_group(rows)?[..], 9)?;')).toContain('compactor-blocking');
  });

  it('still gets it when it writes more than the call: another line, or what the note forbids', () => {
    const before = '    let bytes = encode_row_group(rows)?;';
    const more =
      '    let raw = zstd::encode_all(&rows[..], 19)?;\n    let bytes = tokio::task::spawn_blocking(move || encode_row_group(raw)).await??;';
    expect(edit(before, more)).toContain('compactor-blocking');
    const forbidden = '    let bytes = tokio::task::spawn_blocking(move || block_on(encode_row_group(rows))).await??;';
    expect(edit(before, forbidden)).toContain('compactor-blocking');
  });

  it('counts only a span that is the name alone, and never a file name', () => {
    const text =
      'Wrap with `fmt.Errorf("load %s: %w", id, err)`. Use `errors.Is()` to check. Use `writer.rs` as the model. Use `tokio::task::spawn_blocking`.';
    expect([...adoptionOf(spanStances(text), text).adoptTokens].sort()).toEqual(['errors.is', 'tokio::task::spawn_blocking']);
  });

  it('reads the quoted phrases a note forbids, and refuses an edit that writes one', () => {
    const text = 'Use `errors.Is`. Wrap errors with context, no "failed to" prefixes.';
    const a = adoptionOf(spanStances(text), text);
    expect([...a.forbidden]).toContain('failed to');
    expect(adoptedNames(a, 'if errors.Is(err, ErrGone) {', '')).toEqual(['errors.is']);
    expect(adoptedNames(a, 'if errors.Is(err, ErrGone) { // failed to find', '')).toEqual([]);
    // Already there before the edit: the edit does not bring it in.
    expect(adoptedNames(a, 'if errors.Is(err, ErrGone) {', 'if errors.Is(err, ErrOld) {')).toEqual([]);
  });
});
