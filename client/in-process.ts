/**
 * What the thin client loads when the recall server cannot answer a hook: the call answered in this
 * process, by the same answerHook the server runs (its own bundle: loaded only on that path).
 */
export { answerHook } from '../hooks/answer.js';
