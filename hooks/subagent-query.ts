/**
 * What a subagent is about to do, as a recall query: its type or name, its description and its
 * task — never an opaque agent id or a folder path, which match nothing in a KB.
 *
 * Harness payloads differ: Copilot sends agentName, agentDisplayName and agentDescription; Claude
 * Code and Codex send agent_type only. Claude Code writes the parent's Task/Agent tool call (with its
 * description and prompt) to the session transcript before the subagent starts, so the task text is
 * read from the end of `transcript_path` when the payload has none. Codex's payload and transcript
 * carry no task text, so there the query is the agent type.
 */
import fs from 'node:fs';
import { pick } from './runtime.js';
import { stallPoint } from '../io/read-stall.js';

/** Bytes read from the end of a transcript: the tool call that started the subagent is among the last lines. */
export const TRANSCRIPT_TAIL_BYTES = 256 * 1024;
/** Task text kept in the query: enough for its subject, short enough for a readable header. */
export const TASK_CHARS = 400;

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/**
 * Last bytes of a file as text, or '' (missing, unreadable, not a regular file). Opened without
 * blocking and checked before any read: `transcript_path` comes from the payload, and a FIFO there
 * would block the open itself (in the recall server, every other caller with it).
 */
function tail(file: string, bytes: number): string {
  let fd: number | null = null;
  stallPoint(file);
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return '';
    const len = Math.min(bytes, st.size);
    const buf = Buffer.alloc(len);
    fs.readSync(fd, buf, 0, len, st.size - len);
    return buf.toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

interface TaskCall {
  type: string | null;
  description: string;
  prompt: string;
}

/** Task/Agent tool calls in one Claude Code transcript line (assistant message content). */
function taskCalls(line: unknown): TaskCall[] {
  const content = (line as { message?: { content?: unknown } })?.message?.content;
  if (!Array.isArray(content)) return [];
  const out: TaskCall[] = [];
  for (const item of content) {
    const it = item as { type?: unknown; input?: Record<string, unknown> };
    if (it?.type !== 'tool_use' || !it.input || typeof it.input !== 'object') continue;
    const { subagent_type: type, description, prompt } = it.input;
    if (typeof prompt !== 'string' && typeof description !== 'string') continue;
    if (type === undefined && typeof prompt !== 'string') continue;
    out.push({
      type: typeof type === 'string' ? type : null,
      description: typeof description === 'string' ? description : '',
      prompt: typeof prompt === 'string' ? prompt : '',
    });
  }
  return out;
}

/** The latest Task/Agent call for `agentType` in the transcript's tail, as "description prompt". */
export function transcriptTask(transcriptPath: string | null, agentType: string | null): string {
  if (!transcriptPath) return '';
  const lines = tail(transcriptPath, TRANSCRIPT_TAIL_BYTES).split('\n');
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const raw = lines[i]!.trim();
    if (!raw.startsWith('{')) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      continue; // the first line of the tail is usually cut
    }
    const calls = taskCalls(parsed).reverse();
    const hit = calls.find((c) => !agentType || !c.type || c.type === agentType);
    if (hit) return squash(`${hit.description} ${hit.prompt}`).slice(0, TASK_CHARS);
  }
  return '';
}

/** The recall query for a SubagentStart payload ('' when it says nothing about the work). */
export function subagentQuery(input: Record<string, unknown>): string {
  const type = pick(input, ['agent_type', 'agentType', 'subagent_type', 'subagentType']);
  const name = pick(input, ['agentName', 'agent_name']);
  const display = pick(input, ['agentDisplayName', 'agent_display_name']);
  const description = pick(input, ['agentDescription', 'agent_description', 'description']);
  const given = pick(input, ['prompt', 'task']);
  const task = given ? squash(given).slice(0, TASK_CHARS) : transcriptTask(pick(input, ['transcript_path', 'transcriptPath']), type);
  const parts: string[] = [];
  for (const p of [type, name, display, description, task]) {
    const v = p ? squash(p) : '';
    if (v && !parts.some((q) => q.toLowerCase() === v.toLowerCase())) parts.push(v);
  }
  return parts.join(' | ');
}
