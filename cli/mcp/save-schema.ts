/** The MCP save tool's description and its `applies_when` field, apart from the tools' wiring. */
import { z } from 'zod';
import { LEARNING_LIMITS } from '../../pipeline/learnings/index.js';

export const SAVE_DESCRIPTION =
  "Save a learning for future sessions: a non-obvious fix, a convention learned the hard way, a dead end not to repeat. Not for what the code or git history already says, and never secrets (they are scrubbed anyway). Written to the project's reflect KB; the next recall finds it.";

/** The save tool's `applies_when`: when the learning is shown just before a tool call. */
export const APPLIES_WHEN_SCHEMA = z
  .array(z.string())
  .optional()
  .describe(
    `when it applies (at most ${LEARNING_LIMITS.when}): commands like "pnpm|npm install" or "terraform force-unlock", path globs like "apps/api/**"; recall shows the learning just before such a call`,
  );
