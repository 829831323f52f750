/**
 * What the thin client loads when the server cannot answer a hook: the hook run in this process,
 * exactly as its own entry script runs it (stdin already read by the client).
 */
export { hookAnswer } from '../hooks/entry.js';
