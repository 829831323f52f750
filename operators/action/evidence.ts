/** The evidence a tool call gathers for each note of a KB (operators/action/match.ts). Pure. */

/** Evidence per note: its sum, what matched, and whether one match was strong enough alone. */
export class Evidence {
  readonly byNote = new Map<number, { s: number; why: string[]; strong: boolean; pieces: Set<string>; best: number; bestWhy: string }>();
  /** `piece` names what the credit rests on: credits with the same piece count once towards "more than one". */
  credit(i: number, s: number, why: string, strong = false, piece = why): void {
    const e = this.byNote.get(i) ?? { s: 0, why: [], strong: false, pieces: new Set<string>(), best: 0, bestWhy: '' };
    e.s += s;
    if (s > e.best) [e.best, e.bestWhy] = [s, why];
    e.why.push(why);
    e.strong ||= strong;
    e.pieces.add(piece);
    this.byNote.set(i, e);
  }
}

/** Rarity among the notes: a word or token half the KB names tells none of them apart. */
export const spread = (df: number): number => 1 / Math.sqrt(Math.max(1, df));
