/** Hook entry: `node dist/hooks/session-start.js` with the harness's hook JSON on stdin. */
import { hookMain } from './entry.js';

await hookMain('session-start');
