// Entry of sinks/render/: other folders import this folder through this file only (spec/architecture.test.ts);
// files inside the folder import each other directly.
export { renderFleetContext } from './fleet-context.js';
export { renderJson } from './json.js';
export { fieldValue, renderMarkdown, renderWeak } from './markdown.js';
