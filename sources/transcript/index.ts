/**
 * The assistant's words in a harness transcript, read in bounded pieces: what helpfulness needs to
 * tell whether an injected note was used, and nothing else. A transcript is JSON lines:
 * - Claude Code: `{"type": "assistant", "message": {"content": [{"type": "text", "text": …},
 *   {"type": "tool_use", "input": {…}}, {"type": "thinking", "thinking": …}]}}` (content may also be
 *   a plain string); user, system, attachment and summary lines are skipped, so the injected notes
 *   themselves (which the harness records with the prompt) never count as the assistant's words;
 * - Codex rollouts: `{"type": "response_item", "payload": {"type": "message", "role": "assistant",
 *   "content": [{"type": "output_text", "text": …}]}}`, and function calls' arguments.
 * Anything else (unknown line types, garbage, a line cut by the size cap) is skipped silently.
 *
 * Only the bytes after `offset` (the transcript's size when the note was injected) are read, at
 * most `maxBytes` of them: a hook stays within its time budget on a transcript of any size. Nothing
 * read here is stored or sent: the caller keeps the verdict only.
 */
import fs from 'node:fs';
import { stallPoint } from '../../io/read-stall.js';

/** Default cap on the bytes read after an injection: the turns that follow it, not a whole long session. */
export const TRANSCRIPT_READ_BYTES = 256 * 1024;
/** Longest piece of one content block kept (a huge tool input is cut, not dropped). */
const MAX_BLOCK_CHARS = 32 * 1024;

export interface TranscriptSlice {
  /** The assistant's text (text, thinking, tool inputs), one block per line. */
  text: string;
  /** Bytes of the transcript when read (the next injection's offset). */
  size: number;
  /** Whether the cap cut the read short. */
  truncated: boolean;
}

const asRecord = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** Text of one content block (Claude Code or Codex), or ''. */
function blockText(block: unknown): string {
  if (typeof block === 'string') return block;
  const b = asRecord(block);
  if (!b) return '';
  for (const key of ['text', 'thinking']) if (typeof b[key] === 'string') return b[key];
  if (b['input'] !== undefined) return JSON.stringify(b['input']) ?? '';
  if (typeof b['arguments'] === 'string') return b['arguments'];
  return '';
}

function contentText(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  return Array.isArray(content) ? content.map(blockText).filter(Boolean) : [];
}

/** The assistant's text in one transcript line, or [] when the line is not the assistant's (or not JSON). */
export function assistantTextOf(line: string): string[] {
  let o: Record<string, unknown> | null;
  try {
    o = asRecord(JSON.parse(line));
  } catch {
    return [];
  }
  if (!o) return [];
  if (o['type'] === 'assistant') {
    const msg = asRecord(o['message']);
    return msg ? contentText(msg['content']) : [];
  }
  const payload = o['type'] === 'response_item' ? asRecord(o['payload']) : null;
  if (payload?.['type'] === 'message' && payload['role'] === 'assistant') return contentText(payload['content']);
  if (payload?.['type'] === 'function_call' && typeof payload['arguments'] === 'string') return [payload['arguments']];
  return [];
}

/**
 * The assistant's text written after `offset`, at most `maxBytes` read. A missing or unreadable
 * file, or an offset past its end (a rewritten transcript), gives empty text: never an exception.
 */
export function readAssistantAfter(file: string, offset: number, maxBytes = TRANSCRIPT_READ_BYTES): TranscriptSlice {
  let fd: number | null = null;
  stallPoint(file);
  try {
    // Only a regular file is opened (a FIFO or device at that path would block or never end), and
    // without blocking, should it be swapped for one between the check and the open.
    if (!fs.statSync(file).isFile()) return { text: '', size: 0, truncated: false };
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { text: '', size: 0, truncated: false };
    const start = offset >= 0 && offset <= st.size ? offset : st.size;
    const length = Math.min(st.size - start, Math.max(0, maxBytes));
    const buf = Buffer.alloc(length);
    const got = length > 0 ? fs.readSync(fd, buf, 0, length, start) : 0;
    const lines = buf.subarray(0, got).toString('utf8').split('\n');
    const truncated = start + got < st.size;
    // A read cut by the cap ends inside a line: that piece is not JSON and is skipped.
    const pieces = lines.flatMap((l) => (l.trim() ? assistantTextOf(l) : [])).map((t) => t.slice(0, MAX_BLOCK_CHARS));
    return { text: pieces.join('\n'), size: st.size, truncated };
  } catch {
    return { text: '', size: 0, truncated: false };
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/** The transcript's size in bytes now (the offset an injection records), or null when it cannot be read. */
export function transcriptSize(file: string): number | null {
  stallPoint(file);
  try {
    const st = fs.statSync(file);
    return st.isFile() ? st.size : null;
  } catch {
    return null;
  }
}

/** Bytes read from a transcript's end for its last user prompt. */
export const PROMPT_TAIL_BYTES = 64 * 1024;

/** The person's words in one transcript line (Claude Code or Codex), or null (tool results, injected text, other lines). */
export function userTextOf(line: string): string | null {
  let o: Record<string, unknown> | null;
  try {
    o = asRecord(JSON.parse(line));
  } catch {
    return null;
  }
  if (!o) return null;
  if (o['type'] === 'user') {
    const msg = asRecord(o['message']);
    const content = msg?.['content'];
    if (typeof content === 'string') return content;
    // A content list of tool results is the harness speaking, not the person.
    const texts = Array.isArray(content) ? content.filter((b) => asRecord(b)?.['type'] === 'text').map(blockText) : [];
    return texts.length > 0 ? texts.join('\n') : null;
  }
  const payload = o['type'] === 'response_item' ? asRecord(o['payload']) : null;
  if (payload?.['type'] === 'message' && payload['role'] === 'user') return contentText(payload['content']).join('\n') || null;
  return null;
}

/**
 * The last thing the person typed in a transcript, read from its last `maxBytes` (a hook must not
 * read a long session whole), or '' when there is none or the file cannot be read.
 */
export function lastUserPrompt(file: string, maxBytes = PROMPT_TAIL_BYTES): string {
  let fd: number | null = null;
  stallPoint(file);
  try {
    if (!fs.statSync(file).isFile()) return '';
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size === 0) return '';
    const start = Math.max(0, st.size - maxBytes);
    const buf = Buffer.alloc(st.size - start);
    const got = fs.readSync(fd, buf, 0, buf.length, start);
    const lines = buf.subarray(0, got).toString('utf8').split('\n');
    for (let i = lines.length - 1; i >= 0; i -= 1) {
      const text = lines[i]!.trim() ? userTextOf(lines[i]!) : null;
      // Text the harness wraps in tags (a command's output, an injected reminder) is not the person's.
      if (text && !/^\s*<[a-z-]+>/.test(text)) return text.slice(0, MAX_BLOCK_CHARS);
    }
    return '';
  } catch {
    return '';
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}
