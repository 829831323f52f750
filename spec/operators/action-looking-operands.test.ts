/**
 * A status or list word that names what a command acts on is no report: `git push origin current`
 * pushes a branch called current, `kubectl delete configmap status` deletes a configmap. Such a
 * word reports only as the subcommand of a tool's group (`prisma migrate status`) or a task's last
 * part (`db:migrate:status`).
 */
import { describe, it, expect } from '@jest/globals';
import { onlyLooks, readToolCall } from '../../operators/action/index.js';

const looks = (command: string): boolean => onlyLooks(readToolCall({ tool_name: 'Bash', tool_input: { command } })!.commands);

describe('a status word a command acts on', () => {
  it('does not make the command one that only looks', () => {
    expect(looks('git push origin current')).toBe(false);
    expect(looks('kubectl delete configmap status -n prod')).toBe(false);
    expect(looks('gh release delete v2 history')).toBe(false);
  });

  it('while a group subcommand or a task part still reports', () => {
    expect(looks('npx prisma migrate status')).toBe(true);
    expect(looks('cargo sqlx migrate info --source crates/store/migrations')).toBe(true);
    expect(looks('bin/rails db:migrate:status')).toBe(true);
  });
});

describe('git tag given the tags a listing finds', () => {
  it('deletes them: no call that only looks', () => {
    expect(looks("git tag -d $(git tag -l 'v1.*')")).toBe(false);
    expect(looks("git tag -l 'v1.*' | xargs git tag -d")).toBe(false);
    expect(looks("git tag --list 'v2026.11.*' --sort=-creatordate")).toBe(true);
    expect(looks('git tag')).toBe(true);
  });
});
