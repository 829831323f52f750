/**
 * Reading environment values for the settings list (core/settings/settings.ts): a malformed value never
 * throws; it becomes a warning and the setting's default is used.
 */
import { setting } from '../../core/settings/index.js';
import { isTruthyWord } from '../../core/truthy.js';

export type Env = Readonly<Record<string, string | undefined>>;

export class EnvReader {
  readonly warnings: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  }

  /** A number in [min, max]; out-of-range values are clamped, junk falls back with a warning. */
  num(name: string, def: number, min: number, max: number, opts: { integer?: boolean; strict?: boolean } = {}): number {
    const v = this.raw(name);
    if (v === undefined) return def;
    const n = Number(v);
    if (!Number.isFinite(n) || (opts.integer && !Number.isInteger(n))) {
      this.warnings.push(`${name}=${JSON.stringify(v)} is not a valid ${opts.integer ? 'integer' : 'number'}; using ${def}`);
      return def;
    }
    if (opts.strict && (n < min || n > max)) {
      this.warnings.push(`${name}=${JSON.stringify(v)} is outside ${min}..${max}; using ${def}`);
      return def;
    }
    return Math.min(max, Math.max(min, n));
  }

  /** One of a fixed set of words (case-insensitive); anything else falls back with a warning. */
  oneOf<T extends string>(name: string, values: readonly T[], def: T): T {
    const v = this.raw(name)?.toLowerCase();
    if (v === undefined) return def;
    if ((values as readonly string[]).includes(v)) return v as T;
    this.warnings.push(`${name}=${JSON.stringify(v)} is not one of ${values.join(', ')}; using ${def}`);
    return def;
  }

  /** Switch that is on unless set to exactly "0" (the reference's convention for RECALL_* toggles). */
  onUnlessZero(name: string): boolean {
    return this.raw(name) !== '0';
  }

  /** Switch that is on when set to a truthy word (1, true, yes, on). */
  flag(name: string): boolean {
    return isTruthyWord(this.raw(name));
  }

  /** A number setting, with the default, range and strictness of its entry in the settings list. */
  number(env: string): number {
    const s = setting(env);
    const opts = { integer: s.integer === true, strict: s.strict === true };
    return this.num(env, s.def as number, s.min ?? -Infinity, s.max ?? Infinity, opts);
  }

  /** A boolean setting: one that defaults to on stays on unless set to 0; one that defaults to off needs a truthy word. */
  bool(env: string): boolean {
    return setting(env).def === true ? this.onUnlessZero(env) : this.flag(env);
  }

  /** A setting with a fixed set of words, defaulting to its entry's default. */
  choice<T extends string>(env: string): T {
    const s = setting(env);
    return this.oneOf(env, s.choices as readonly T[], s.def as T);
  }

  /** A text setting, or its default (null when it has none). */
  text(env: string): string | null {
    const d = setting(env).def;
    return this.raw(env) ?? (typeof d === 'string' ? d : null);
  }
}
