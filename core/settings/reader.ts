/**
 * The one reader of settings: the recall pipeline's configuration (pipeline/config/config.ts), the
 * hooks' own numbers and deadlines, and the team store's settings all read their environment (with
 * recall.toml folded under it) through this class, with the default and range of each setting's
 * entry in the settings table (settings.ts).
 *
 * The rule, for every number: a value that is not a number (not an integer, where only integers are
 * valid) or that lies outside the setting's range is refused; the setting's default is used and a
 * warning names the variable, the value, the range and the value used. Nothing here throws, so a
 * hook never fails on a setting. Refused rather than clamped: an out-of-range value is almost always
 * a slip of unit or scale (milliseconds for seconds, 50 for 0.5), and clamping turns the slip into
 * the extreme of the range (a one-hour hook deadline, a relevance floor of 1 that silences every
 * recall), where refusing gives the documented default. A user who sets a value therefore gets one
 * of two outcomes, both readable in the settings table: their value, or the default and a warning.
 */
import { isFalsyWord, isTruthyWord } from '../truthy.js';
import { setting } from './settings.js';

export type Env = Readonly<Record<string, string | undefined>>;

export class SettingsReader {
  /** One line per value refused, naming the variable, the value and the value used instead. */
  readonly warnings: string[] = [];
  constructor(private readonly env: Env) {}

  /** The variable's value, trimmed; undefined when unset or blank. */
  raw(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  }

  /**
   * A number setting, with the default, range and integer rule of its entry in the settings table:
   * unset gives the default; a value that is not a number (not an integer, where only integers are
   * valid) or lies outside the range gives the default and a warning.
   */
  number(env: string): number {
    const s = setting(env);
    const def = s.def;
    if (typeof def !== 'number') throw new Error(`${env} has no numeric default`);
    const v = this.raw(env);
    if (v === undefined) return def;
    const n = Number(v);
    const min = s.min ?? -Infinity;
    const max = s.max ?? Infinity;
    if (!Number.isFinite(n) || (s.integer === true && !Number.isInteger(n))) {
      this.warnings.push(`${env}=${JSON.stringify(v)} is not a valid ${s.integer === true ? 'integer' : 'number'}; using ${def}`);
      return def;
    }
    if (n < min || n > max) {
      this.warnings.push(`${env}=${JSON.stringify(v)} is outside ${rangeText(min, max)}; using ${def}`);
      return def;
    }
    return n;
  }

  /**
   * A boolean setting. One that defaults to on stays on unless set to an "off" word: 0 (the
   * reference's convention for RECALL_* toggles), false, no or off (only "0" used to count, so
   * `RECALL_X=false` left the switch on). One that defaults to off needs a truthy word (1, true, yes, on).
   */
  bool(env: string): boolean {
    return setting(env).def === true ? !isFalsyWord(this.raw(env)) : isTruthyWord(this.raw(env));
  }

  /** A setting with a fixed set of words (case-insensitive), defaulting to its entry's default; anything else falls back with a warning. */
  choice<T extends string>(env: string): T {
    const s = setting(env);
    const values = s.choices as readonly T[];
    const def = s.def as T;
    const v = this.raw(env)?.toLowerCase();
    if (v === undefined) return def;
    if ((values as readonly string[]).includes(v)) return v as T;
    this.warnings.push(`${env}=${JSON.stringify(v)} is not one of ${values.join(', ')}; using ${def}`);
    return def;
  }

  /** A text setting, or its default (null when it has none). */
  text(env: string): string | null {
    const d = setting(env).def;
    return this.raw(env) ?? (typeof d === 'string' ? d : null);
  }
}

/** A range as the warning shows it: `0..1`, or `0..` with no upper bound. */
function rangeText(min: number, max: number): string {
  return `${Number.isFinite(min) ? min : ''}..${Number.isFinite(max) ? max : ''}`;
}
