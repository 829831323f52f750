/** Hook entry: `node dist/hooks/user-prompt-submit.js` with the harness's hook JSON on stdin. */
import { hookMain } from './entry.js';

await hookMain('user-prompt-submit');
