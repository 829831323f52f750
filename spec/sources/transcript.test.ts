import { describe, it, expect } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { assistantTextOf, readAssistantAfter, transcriptSize } from '../../sources/transcript/index.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-transcript-'));
const file = (name: string, text: string): string => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};
const assistant = (text: string): string =>
  JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] } });
const user = (text: string): string => JSON.stringify({ type: 'user', message: { role: 'user', content: text } });

describe('assistantTextOf', () => {
  it('reads Claude Code text, thinking and tool inputs, and Codex assistant messages', () => {
    expect(assistantTextOf(assistant('hello'))).toEqual(['hello']);
    const mixed = {
      type: 'assistant',
      message: {
        content: [
          { type: 'thinking', thinking: 'hm' },
          { type: 'tool_use', input: { cmd: 'ls -la' } },
        ],
      },
    };
    expect(assistantTextOf(JSON.stringify(mixed))).toEqual(['hm', '{"cmd":"ls -la"}']);
    expect(assistantTextOf(JSON.stringify({ type: 'assistant', message: { content: 'plain' } }))).toEqual(['plain']);
    const codex = {
      type: 'response_item',
      payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'codex says' }] },
    };
    expect(assistantTextOf(JSON.stringify(codex))).toEqual(['codex says']);
  });

  it('skips the user’s lines, other line types and garbage', () => {
    for (const line of [user('the note text'), '{"type":"summary"}', 'not json', '[1]', 'null', '{"type":"assistant","message":null}'])
      expect(assistantTextOf(line)).toEqual([]);
    const codexUser = { type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'x' }] } };
    expect(assistantTextOf(JSON.stringify(codexUser))).toEqual([]);
  });
});

describe('readAssistantAfter', () => {
  it('reads only what was written after the offset', () => {
    const before = `${assistant('old reply')}\n`;
    const p = file('a.jsonl', `${before}${user('next')}\n${assistant('new reply')}\n`);
    const slice = readAssistantAfter(p, Buffer.byteLength(before));
    expect(slice.text).toBe('new reply');
    expect(slice.size).toBe(fs.statSync(p).size);
    expect(slice.truncated).toBe(false);
  });

  it('stops at the byte cap, skipping the line the cap cut', () => {
    const p = file('b.jsonl', `${assistant('first')}\n${assistant('x'.repeat(5000))}\n`);
    const slice = readAssistantAfter(p, 0, Buffer.byteLength(assistant('first')) + 100);
    expect(slice.text).toBe('first');
    expect(slice.truncated).toBe(true);
  });

  it('gives empty text, never an error, for a missing file, a directory, an offset past the end or a FIFO', () => {
    expect(readAssistantAfter(path.join(dir, 'missing.jsonl'), 0)).toEqual({ text: '', size: 0, truncated: false });
    expect(readAssistantAfter(dir, 0).text).toBe('');
    const p = file('c.jsonl', `${assistant('a')}\n`);
    expect(readAssistantAfter(p, 10_000).text).toBe('');
    const fifo = path.join(dir, 'fifo');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      return; // no mkfifo here: the regular-file check is covered by the directory case
    }
    expect(readAssistantAfter(fifo, 0).text).toBe('');
    expect(transcriptSize(fifo)).toBeNull();
  });
});
