/**
 * The words that name the kinds of work a tool call does (call-work.ts, work-kinds.ts): a rule about
 * that work ("new-dependency-policy" for `npm install zod`) says one of them, where it may share no
 * other word with the call. Pure.
 */
import { callWork } from './call-work.js';
import { KINDS } from './work-kinds.js';
import type { ToolAction } from './tool-call.js';

/**
 * The kinds of work the call does and the words a rule's name says each with, and the kind's tools
 * (`new-dependency-policy`, "use pnpm" for `npm install zod`): whole words, to be matched as such.
 */
export function callWorkWords(action: ToolAction): string[] {
  const kinds = callWork(action, action.paths).kinds;
  return [...kinds, ...KINDS.filter((k) => kinds.has(k.kind)).flatMap((k) => [...k.named, ...(k.tools ?? [])])];
}
