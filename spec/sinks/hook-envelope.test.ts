/**
 * The hook envelope around a block of recalled notes: cut to the harness's inline limit without
 * ever losing the block's closing tag, and always well-formed JSON (no lone surrogate escapes).
 */
import { describe, it, expect } from '@jest/globals';
import { HARNESS_CONTEXT_CAP, fitContext, toHookEnvelope } from '../../sinks/hook-envelope.js';
import { REFERENCE_CLOSE, REFERENCE_OPEN, asReferenceBlock } from '../../sinks/safe-text.js';

const learnings = (n: number): string =>
  [
    '## Prior learnings relevant to `x`',
    ...Array.from({ length: n }, (_, i) => `- **[lrn-${i}]** note ${i} ${'detail '.repeat(40)}\n  How to apply: step ${i}`),
  ].join('\n');

describe('fitContext', () => {
  it('cuts inside the block of recalled notes at a learning boundary and keeps the block closed', () => {
    const block = asReferenceBlock(learnings(60));
    expect(block.length).toBeGreaterThan(HARNESS_CONTEXT_CAP.codex);
    const cut = fitContext(block, HARNESS_CONTEXT_CAP.codex);
    expect(cut.length).toBeLessThanOrEqual(HARNESS_CONTEXT_CAP.codex);
    expect(cut.startsWith(REFERENCE_OPEN)).toBe(true);
    expect(cut.endsWith(`cut to fit the harness limit on hook output)\n${REFERENCE_CLOSE}`)).toBe(true);
    expect(cut.match(/<\/recall-notes>/g)).toHaveLength(1);
    // The last learning kept is whole.
    expect(cut).toMatch(/How to apply: step \d+\n… \(more learnings cut/);
  });

  it('leaves text within the cap unchanged, and cuts text without a block the same way as before', () => {
    const small = asReferenceBlock(learnings(2));
    expect(fitContext(small, 9_500)).toBe(small);
    const plain = learnings(60);
    const cut = fitContext(plain, 7_000);
    expect(cut.length).toBeLessThanOrEqual(7_000);
    expect(cut.endsWith('(more learnings cut to fit the harness limit on hook output)')).toBe(true);
  });
});

describe('toHookEnvelope', () => {
  it('is strict JSON whatever the cut: no lone surrogate, not even half a pair split by the cap', () => {
    // Emoji (surrogate pairs) straddle every possible cut point.
    const text = asReferenceBlock(`## Prior learnings\n- **[lrn-1]** ${'😀'.repeat(6000)} \ud800 lone`);
    for (const harness of ['claude', 'codex', 'copilot'] as const) {
      const out = toHookEnvelope(harness, 'SessionStart', text);
      expect(out).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
      const body = JSON.parse(out) as { hookSpecificOutput?: { additionalContext: string }; additionalContext?: string };
      const ctx = body.hookSpecificOutput?.additionalContext ?? body.additionalContext ?? '';
      expect(ctx.endsWith(REFERENCE_CLOSE)).toBe(true);
      expect(ctx.length).toBeLessThanOrEqual(HARNESS_CONTEXT_CAP[harness]);
    }
  });

  it("Copilot's userPromptTransformed gets the block after its prompt, closed", () => {
    const block = asReferenceBlock(learnings(60));
    const out = JSON.parse(toHookEnvelope('copilot', 'UserPromptSubmit', block, { transformedPrompt: 'fix the pool' })) as {
      modifiedTransformedPrompt: string;
    };
    expect(out.modifiedTransformedPrompt.startsWith(`fix the pool\n\n${REFERENCE_OPEN}`)).toBe(true);
    expect(out.modifiedTransformedPrompt.endsWith(REFERENCE_CLOSE)).toBe(true);
    expect(toHookEnvelope('copilot', 'UserPromptSubmit', '', { transformedPrompt: 'fix the pool' })).toBe('{}\n');
  });
});
