/** The markdown contract agents read before a deep dig (`recall stages workflow`). */
export function workflowText(): string {
  return `# Reflect Staged Recall Workflow

Use this for deep digs — tracing how a problem evolved, or reading several related learnings in
full — instead of repeated one-shot recalls. It is the token-cheap discipline: triage many hits
through ID-only rows, then pay for full text only where it is needed (~10x fewer tokens than
hydrating everything up front).

## 3-Layer Pattern (ALWAYS follow this)

1. **index** — compact ID-only hits \`{id, title, score, relevance, project, date}\`, best first (relevance under 0.5 = a weak match)
   (~50-100 tokens per row).

   recall stages index "QUERY" --limit 20

2. **timeline** — chronological neighbours around an interesting hit (anchor by ID, or pass a
   query to pick the anchor); rows \`{id, title, project, date, anchor}\`, no bodies.

   recall stages timeline --anchor ID --depth-before 3 --depth-after 3

3. **hydrate** — full bodies, frontmatter and entity sidecars, ONLY for the ids that survived
   steps 1-2 (~500-1000 tokens per hydrated note).

   recall stages hydrate ID [ID ...]

## Rules

- Never hydrate without filtering through steps 1-2 first: index and timeline rows are ID-only so
  that many results cost few tokens.
- Always batch 2+ ids into one hydrate call rather than hydrating one id at a time.
- Every step prints JSON with a \`step\` number. A timeline that cannot find its anchor answers
  \`{"step": 2, "error": ..., "results": []}\`; a hydrate id that is not a live note answers
  \`{"id": ..., "found": false}\`.
`;
}
