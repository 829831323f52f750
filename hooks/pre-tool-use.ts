/** Hook entry: `node dist/hooks/pre-tool-use.js` with the harness's hook JSON on stdin. */
import { hookMain } from './entry.js';

await hookMain('pre-tool-use');
