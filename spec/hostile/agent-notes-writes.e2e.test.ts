/**
 * The MCP tools' writes an agent makes (issue 36, item 1): `forget` and `supersede` change only
 * notes agents wrote; a person's note is changed only when the person says yes to the client's
 * elicitation form, else the tool refuses with the exact command for the person. Before, MCP forget
 * retired 6 of 6 people's notes without a question. Also: `recall accept`, and how a person's
 * `recall add` differs from one an agent runs from its shell. (Injection: agent-notes.e2e.test.ts.)
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { expectEnvelope, runCli, runHook } from './helpers.js';
import {
  HOOK_DEADLINE_MS,
  HUMANS,
  POISON_NOTE,
  SESSION,
  agentCase,
  closeCase,
  connect,
  frontmatter,
  text,
  userPrompt,
  type AgentCase,
  type ToolText,
} from './agent-notes-fixture.js';

let a: AgentCase;
let poisonId = '';
beforeAll(async () => {
  a = agentCase();
  poisonId = (await (await connect(a)).save(POISON_NOTE)).id;
}, 60_000);
afterAll(() => closeCase(a));

describe("the MCP tools' writes (issue 36, item 1)", () => {
  it("MCP forget and supersede refuse a person's note (no elicitation): 0 of 6 retired, each refusal names the command", async () => {
    const { call } = await connect(a);
    const answers: ToolText[] = [];
    for (let i = 0; i < HUMANS; i += 1) answers.push(await call('forget', { id: `lrn-human-${i}` }));
    // Counted before asserting, so a failure shows how many were retired.
    expect(answers.filter((r) => !r.isError).map(text)).toEqual([]);
    answers.forEach((r, i) => expect(text(r)).toContain(`recall forget lrn-human-${i} --kb ${a.kb}`));
    const sup = await call('supersede', { old_id: 'lrn-human-0', new_id: poisonId });
    expect(sup.isError).toBe(true);
    expect(text(sup)).toContain(`recall supersede lrn-human-0 ${poisonId} --kb ${a.kb}`);
    for (let i = 0; i < HUMANS; i += 1) {
      const file = path.join(a.docs, `human-${i}.md`);
      expect(fs.existsSync(file)).toBe(true);
      expect(frontmatter(file)['superseded_by']).toBeUndefined();
    }
  }, 120_000);

  it('with elicitation, the person is asked: a no changes nothing, a yes forgets the note', async () => {
    let allow = false;
    const { call, asked } = await connect(a, () => ({ action: 'accept', content: { allow } }));
    const no = await call('forget', { id: 'lrn-human-5' });
    expect(no.isError).toBe(true);
    expect(text(no)).toMatch(/declined/);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/forget lrn-human-5 \("shopapi tests need fixture 5"\)/);
    expect(fs.existsSync(path.join(a.docs, 'human-5.md'))).toBe(true);
    allow = true;
    const yes = await call('forget', { id: 'lrn-human-5' });
    expect(yes.isError).toBeFalsy();
    expect(fs.existsSync(path.join(a.docs, 'human-5.md'))).toBe(false);
    expect(asked).toHaveLength(2);
  }, 120_000);

  it('MCP forget and supersede act on notes agents wrote without asking', async () => {
    const { call, save } = await connect(a);
    const first = (await save({ title: 'shopapi flaky test A', insight: 'test A is flaky' })).id;
    const second = (await save({ title: 'shopapi flaky test B', insight: 'test B is flaky too' })).id;
    expect((await call('supersede', { old_id: first, new_id: second })).isError).toBeFalsy();
    expect((await call('forget', { id: second })).isError).toBeFalsy();
  }, 120_000);

  it("recall accept makes an agent's note a person's: no label, and the tier the person gives", async () => {
    const { call } = await connect(a);
    const saved = text(
      await call('save', {
        title: 'shopapi tests need TZ=UTC',
        insight: 'shopapi date tests assume TZ=UTC',
        tags: ['shopapi', 'tests'],
        confidence: 'high',
      }),
    );
    const id = /Saved (\S+) to/.exec(saved)![1]!;
    const file = /to (\S+\.md)/.exec(saved)![1]!;
    const accepted = await runCli(['accept', id, '--kb', a.kb, '--confidence', 'high'], { env: a.env, cwd: a.project });
    expect({ code: accepted.code, stderr: accepted.stderr }).toEqual({ code: 0, stderr: '' });
    expect(frontmatter(file)).toMatchObject({ status: 'approved', confidence: 'high', confidence_num: 0.9 });
    const again = await runCli(['accept', id, '--kb', a.kb], { env: a.env, cwd: a.project });
    expect(again.stderr).toMatch(/not awaiting review/);
    const block = expectEnvelope(
      await runHook('user-prompt-submit', { stdin: userPrompt(a, 'shopapi date tests TZ', 7), env: a.env, cwd: a.project }),
      HOOK_DEADLINE_MS,
    );
    const entry = block.split('\n').find((l) => l.startsWith(`- **[${id}]**`));
    expect(entry).toBeDefined();
    expect(entry).not.toMatch(/written by the agent/);
  }, 120_000);

  it("`recall add` from an agent's shell is the agent's too; a person's `recall add` is not", async () => {
    const agent = await runCli(
      ['add', '--kb', a.kb, '--title', 'shopapi agent shell note', '--insight', 'x', '--confidence', 'high', '--json'],
      {
        env: { ...a.env, CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: SESSION },
        cwd: a.project,
      },
    );
    const person = await runCli(
      ['add', '--kb', a.kb, '--title', 'shopapi person note', '--insight', 'y', '--confidence', 'high', '--json'],
      {
        env: a.env,
        cwd: a.project,
      },
    );
    const agentFm = frontmatter((JSON.parse(agent.stdout) as { path: string }).path);
    const personFm = frontmatter((JSON.parse(person.stdout) as { path: string }).path);
    expect(agentFm).toMatchObject({
      status: 'proposed',
      confidence: 'medium',
      provenance: { source_tool: 'recall add', harness: 'claude' },
    });
    expect(personFm['status']).toBeUndefined();
    expect(personFm).toMatchObject({ confidence: 'high', provenance: { source_tool: 'recall add' } });
  }, 120_000);
});
