// Entry of operators/math/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export {
  BOOST_NAMES,
  BOOST_NORMS,
  type BoostContext,
  type BoostNorm,
  type BoostNorms,
  NEUTRAL_NORM,
  UNSCORED_RELEVANCE,
  boostFactors,
  boostProduct,
  sigmoid,
} from './boosts.js';
export {
  type StemPair,
  evidenceInWords,
  evidenceMass,
  logScale,
  phraseCount,
  queryPairs,
  saturate,
  standouts,
  summaryShare,
  titlePhraseShare,
} from './evidence.js';
export { mmrSelect } from './mmr.js';
export {
  FEATURE_NAMES,
  GENERIC_INFO,
  type ModelFeature,
  type NoteTerms,
  RELEVANCE_MODEL,
  type RelevanceFeatures,
  type RelevanceModel,
  WINDOW_MATCH_RELEVANCE,
  abbreviationCandidates,
  containsTerm,
  contributions,
  isLabel,
  MIN_LABEL_NOTES,
  TITLE_LABEL_SHARE,
  lexicalRelevance,
  matchedStem,
  noteTerms,
  relevanceFeatures,
  type WeightedTerm,
} from './relevance.js';
