/**
 * Feature-flag work in a prompt that never says "feature flag": putting a change behind a flag,
 * launching it dark, letting a few users have it first, or turning a flag's name on for some of
 * them ("switch new_invoice_layout on in prod for customers 311 and 4120"). Teams write rules
 * about flags (where they are declared, who owns them, where they are toggled) that apply to all of
 * these. Not a command's option ("add a --dry-run flag"), a column called `flags`, a flag emoji, or
 * flagging an account, which no pattern here reads. Each pattern's `verb` group is where the request
 * starts, so a denied one ("don't put it behind a flag") asks for nothing (requests.ts). Data only.
 */

/** Who gets a flagged feature: the users of an app by any of their everyday names. */
const AUDIENCE = String.raw`(?:users?|customers?|sellers?|buyers?|accounts?|tenants?|orgs?|organi[sz]ations?|merchants?|teams?|workspaces?|people|testers?|members?|clinics?|stores?|shops?|drivers?|couriers?|partners?|admins?|employees?|cohorts?|groups?|beta|pilots?)`;

/** Words that say "at first": the rest get the feature later. */
const FIRST = String.raw`(?:first|initially|at first|to start(?: with)?|for now|for (?:the|a) first)`;

/**
 * Each pattern with `pre`, a cheap test of a word it needs: most prompts have none, and V8 compiles a
 * regexp the first time it runs (asked-work.ts).
 */
export const FLAG_REQUESTS: { kind: string; re: RegExp; pre: RegExp }[] = [
  // "put the redesigned onboarding behind a flag", "gate it on a feature toggle"; not "behind a --verbose
  // flag" or a debug, verbose or CLI flag, nor a UI's toggle ("the logs are behind the debug toggle"),
  // nor a flag denied with no verb before it ("this should not be behind a flag").
  {
    kind: 'flag',
    pre: /flag|toggle/i,
    // The verb before it, when there is one, is where the request starts: "don't put it behind a flag" asks for none.
    re: /(?<!\b(?:not|n't|never|no longer)\s+(?:be\s+|been\s+)?)\b(?<verb>(?:(?:put|keep|ship|hide|land|release|launch|build|add|wrap|do)\s+(?:[\w'.-]+\s+){0,6}?)?(?:behind|gated? (?:by|on|behind)|guarded by|wrapped in))\s+(?:a|an|the|its own|our)\s+(?:new\s+)?(?:(?!-|(?:debug|verbose|cli|command-line|compile-time|compiler|build|red|env|environment)\s)[\w-]+\s+)?(?:flag|feature[ -]toggle)s?\b(?!\s+(?:emoji|icons?|in the cli|on the command line)\b)/dgi,
  },
  // Launching dark: shipped off, turned on later.
  { kind: 'flag', pre: /dark/i, re: /\b(?<verb>dark[- ]launch(?:ed|es|ing)?)\b/dgi },
  // Some users first, as who is to get it: "only a handful of customers should see it for the first month";
  // not a report of who met a bug ("only a few users reported this at first").
  {
    kind: 'flag',
    pre: /first|initially|for now|to start/i,
    re: new RegExp(
      String.raw`\b(?<verb>only|just)\s+(?:to\s+|for\s+)?(?:a\s+)?(?:few|handful\s+of|couple\s+of|subset\s+of|small\s+group\s+of|some|select(?:ed)?|\d+\s*%\s+of)\s+(?:(?:the|our|internal|beta|trusted|pilot|early)\s+)?${AUDIENCE}\b[^.?!\n]{0,30}?\b(?:to\s+|should\s+|can\s+|will\s+|gets?\s+|sees?\s+)?(?:see|get|have|try|use|access|receive|gets|sees)\s+(?:it|this|that|the\s+[\w-]+)\b[^.?!\n]{0,40}?\b${FIRST}\b`,
      'dgi',
    ),
  },
  {
    kind: 'flag',
    pre: /first|initially|for now|to start/i,
    re: new RegExp(
      String.raw`\b(?<verb>ship|release|launch|give|show|enable|open|roll)\s+(?:out\s+)?(?:it|this|that|them|the\s+[\w-]+(?:\s+[\w-]+)?)\s+(?:out\s+)?(?:for|to)\s+(?:the\s+)?(?:beta|pilot|internal|early[- ]access|alpha)\s+(?:${AUDIENCE}|program|testers)\s+${FIRST}\b`,
      'dgi',
    ),
  },
  // A gradual rollout to users: "roll it out to 10% of users", "ramp it up to half the sellers"; not to
  // pods or nodes ("roll it out to half the pods"), which is a deploy.
  {
    kind: 'flag',
    pre: /roll|ramp/i,
    re: new RegExp(
      String.raw`\b(?<verb>roll(?:ing)?(?:\s+(?:it|this|that|them))?\s+out|ramp(?:ing)?(?:\s+(?:it|this|that|them))?(?:\s+up)?)\s+(?:to|for)\s+(?:\d+\s*%\s+of|a\s+few|a\s+handful\s+of|a\s+subset\s+of|some|half(?:\s+of)?)\s+(?:the\s+|our\s+)?${AUDIENCE}\b`,
      'dgi',
    ),
  },
  // A flag's name (snake_case) turned on or off for some users: "switch new_invoice_layout on in
  // prod for customers 311 and 4120", "enable `checkout_v2` for 10% of buyers". Not a setting
  // turned on for a server ("turn on log_min_duration_statement in prod"): the users are named.
  {
    kind: 'flag',
    pre: /_/,
    re: new RegExp(
      String.raw`\b(?<verb>turn|switch|flip|toggle|enable|disable|ramp)\s+(?:(?:on|off|up)\s+)?(?:the\s+)?\`?[a-z][a-z0-9]*(?:_[a-z0-9]+)+\`?(?:\s+(?:flag|on|off|back\s+on))?[^.?!\n]{0,40}?\b(?:for|to)\s+(?:(?:the|our|all|some|these|those|a\s+few|two|three|\d+\s*%\s+of)\s+)?(?:${AUDIENCE}\b(?!\s+(?:database|db|role|server|cluster|instance|schema|table)s?\b)|\d+\s*%)`,
      'dgi',
    ),
  },
];
