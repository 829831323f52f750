/**
 * The sources an MCP answer read, said in the answer itself: the CLI names them on stderr (`recall:
 * reading 2 sources: …`, pipeline/kb-sources sourcesLine), which an agent never sees. Said when
 * the CLI says it (no KB configured, or several read); a KB the user chose is not announced.
 */
import { CHARS_PER_TOKEN } from '../../sinks/economics.js';
import { commandSources, sourcesLine } from '../../pipeline/kb-sources/index.js';
import type { StagesScope } from '../stages/index.js';

/** The line naming the sources a tool call here reads, or null (one KB the user chose). */
export function sourcesRead(scope: StagesScope, io: { env: Readonly<Record<string, string | undefined>>; cwd: string }): string | null {
  return sourcesLine(commandSources(scope, io).sources);
}

/** Tokens of the budget the line takes (it goes after the answer, so the answer is fitted to what is left). */
export const sourcesTokens = (line: string | null): number => (line ? Math.ceil((line.length + 1) / CHARS_PER_TOKEN) : 0);

/** A text answer with the sources line after it. */
export const withSources = (text: string, line: string | null): string => (line ? `${text.replace(/\n$/, '')}\n${line}\n` : text);

/** A staged step's JSON with the sources line as its first field, `sources` (a budget cut keeps it). */
export function stepWithSources<T extends { results: unknown[] }>(step: T, line: string | null): T | (T & { sources: string }) {
  return line ? { sources: line, ...step } : step;
}
