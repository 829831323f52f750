/**
 * What the thin client loads when the recall server cannot answer a hook: the call answered in this
 * process, by the same answerHook the server runs (its own bundle: loaded only on that path).
 */
import { setFlagsFromString } from 'node:v8';

export { answerHook } from '../hooks/answer.js';

// This process answers one call, which runs each of recall's many prompt-reading regexes once or
// twice. V8 by default first interprets a regexp and compiles it to machine code on a later run:
// for these regexes that costs about 150 ms of a hook, compiling each at once about 50 ms. (Regexps
// compile when first run, never when created, so the flag holds for every one of them.)
setFlagsFromString('--no-regexp-tier-up');
