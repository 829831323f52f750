/** Hook entry: `node dist/hooks/subagent-start.js` with the harness's hook JSON on stdin. */
import { hookMain } from './entry.js';

await hookMain('subagent-start');
