/**
 * Where the model runtime (@huggingface/transformers, with onnxruntime-node under it: ~300 MB) comes
 * from. A clone installs it with `npm ci` (an optional dependency); the plugin payload carries none,
 * and `recall models pull` installs it next to the models, in `<models dir>/.runtime/`, with npm.
 * Nothing else installs it and nothing at run time fetches it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The runtime's package and version: the same as package.json's optionalDependencies (a spec keeps them equal). */
export const MODEL_RUNTIME_PACKAGE = '@huggingface/transformers';
export const MODEL_RUNTIME_VERSION = '3.8.1';

/** The folder `recall models pull` installs the runtime into. */
export function runtimeDir(modelsDir: string): string {
  return path.join(modelsDir, '.runtime');
}

/** The command that installs the runtime there (what `recall models pull` runs, and what it prints without npm). */
export function runtimeInstallArgs(modelsDir: string): string[] {
  // --ignore-scripts: onnxruntime-node ships its CPU binaries in the package; its install script
  // only fetches GPU extras, and recall never runs install scripts of its dependencies.
  return [
    'install',
    '--prefix',
    runtimeDir(modelsDir),
    '--no-save',
    '--no-audit',
    '--no-fund',
    '--ignore-scripts',
    `${MODEL_RUNTIME_PACKAGE}@${MODEL_RUNTIME_VERSION}`,
  ];
}

/**
 * The runtime's ES module entry installed under the models dir, or null when it is not there. Read
 * from its exports map (`node` → `import`): `require.resolve` would give the CommonJS build.
 */
export function installedRuntimeEntry(modelsDir: string): string | null {
  const pkgDir = path.join(runtimeDir(modelsDir), 'node_modules', ...MODEL_RUNTIME_PACKAGE.split('/'));
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as {
      exports?: { node?: { import?: { default?: string } } };
      main?: string;
    };
    const rel = pkg.exports?.node?.import?.default ?? pkg.main;
    return rel && fs.existsSync(path.join(pkgDir, rel)) ? path.join(pkgDir, rel) : null;
  } catch {
    return null;
  }
}

/**
 * Load the runtime: from recall's own dependencies (a clone), else from the models dir (the plugin
 * payload after `recall models pull`). Rejects with the fix when neither has it.
 */
export async function importModelRuntime<T>(modelsDir: string): Promise<T> {
  try {
    return (await import(MODEL_RUNTIME_PACKAGE)) as T;
  } catch (err) {
    const entry = installedRuntimeEntry(modelsDir);
    if (entry) return (await import(pathToFileURL(entry).href)) as T;
    throw new Error(
      `the model runtime (${MODEL_RUNTIME_PACKAGE}) is not installed: \`recall models pull\` installs it (${(err as Error).message.split('\n')[0]})`,
      { cause: err },
    );
  }
}
