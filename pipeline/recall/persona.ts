/**
 * Persona short-circuit: an aggregate question about the team's ways ("what testing style
 * does this team prefer") is answered from the project_persona table of reflect.db, when one exists
 * and holds a high-confidence field the question names. Closed-domain queries and misses fall
 * through to the normal pipeline; any database problem is a miss.
 */
import type { Ledger } from '../../sources/ledger.js';
import type { PersonaHit } from '../../core/types.js';

const OPEN_DOMAIN: readonly RegExp[] = [
  /\bconventions?\b/,
  /\b(prefer|prefers|preferred|preferences?)\b/,
  /\bgenerally\b/,
  /\btypically\b/,
  /\busually\b/,
  /\bpersonas?\b/,
  /\b(code|coding|house|team) style\b/,
  /\bwhat\b.{0,60}\b(do|does) (we|the team|this team|the codebase|this codebase|the project|this project) (use|prefer|follow|like)\b/,
  /\bwhat (do|does) (we|the team|this team|the codebase|this codebase|the project|this project)\b/,
  /\bhow (do|does) (we|the team|this team|the codebase|this codebase|the project|this project)\b/,
];

/** Persona fields below this confidence never answer (reference value). */
export const PERSONA_MIN_CONFIDENCE = 0.8;

export function isOpenDomain(query: string): boolean {
  const q = query.toLowerCase();
  return OPEN_DOMAIN.some((re) => re.test(q));
}

/** Both arguments are lazy: reflect.db is opened and the project detected only for open-domain queries. */
export function personaLookup(query: string, project: () => string, ledgerOf: () => Ledger | null): PersonaHit | null {
  if (!isOpenDomain(query)) return null;
  const q = query.toLowerCase();
  try {
    const ledger = ledgerOf();
    const pid = ledger ? project() : '';
    if (!ledger || !pid) return null;
    for (const row of ledger.persona(pid, PERSONA_MIN_CONFIDENCE)) {
      const parts = String(row.field_name).toLowerCase().split('_').filter(Boolean);
      if (parts.length && parts.every((p) => q.includes(p))) {
        return { project_id: pid, field_name: row.field_name, value: String(row.value), confidence: Number(row.confidence) };
      }
    }
  } catch {
    return null;
  }
  return null;
}
