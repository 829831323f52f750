/**
 * Calls that handle secrets: reading, printing or writing a file that holds them, or printing the
 * environment. Pure.
 *
 * A rule about secrets ("never read `.env` whole", "don't `cat` or `printenv` values into the
 * session") is about exactly the call that only looks: reading a dotenv file puts its keys in the
 * transcript, which a Read of any other file does not. So, unlike other work, this kind counts for a
 * call that only reads (match.ts).
 */
import { program } from './looking.js';

/**
 * Files that hold secrets: a dotenv file (`.env`, `.env.production`; not its `.example`, `.sample`
 * or `.template`, `.env.local.example` too, which teams keep free of them), a private key or keystore, `.netrc`, `.pgpass`, a
 * `credentials` or `secrets` file.
 */
const SECRET_FILE_RE =
  /(?:^|\/)(?:\.env(?:\.(?![\w.-]*\b(?:example|sample|template|dist|defaults?)\b)[\w.-]+)?|\.netrc|\.pgpass|id_(?:rsa|ed25519|ecdsa|dsa)|credentials(?:\.json)?|secrets?\.(?:ya?ml|json|toml))$|\.(?:pem|key|p8|p12|pfx|jks|keystore)$/i;

/** Whether a command prints the environment's values: `printenv` (all, or the variables it names), `env` with no command. */
function printsEnv(c: readonly string[]): boolean {
  if (program(c) === 'printenv') return true;
  if (program(c) === 'env') return c.slice(1).every((w) => w.startsWith('-'));
  // What a container or a pod is told to run (`docker compose exec api printenv`, `kubectl exec pod -- env`).
  return c.slice(1).includes('printenv') || (c.length > 2 && c[c.length - 1] === 'env' && /^(?:exec|run|--)$/.test(c[c.length - 2]!));
}

/** Whether a path names a file that holds secrets (SECRET_FILE_RE). */
export function isSecretFile(path: string): boolean {
  return SECRET_FILE_RE.test(path.trim().replace(/^["']|["']$/g, ''));
}

/**
 * Whether a call handles secrets: one of its paths, or a word of a command it runs, names a secret
 * file, or a command prints the environment (printsEnv; `env FOO=1 cmd` runs `cmd`).
 */
export function handlesSecrets(paths: readonly string[], commands: readonly (readonly string[])[]): boolean {
  if (paths.some(isSecretFile)) return true;
  return commands.some((c) => c.slice(1).some(isSecretFile) || printsEnv(c));
}
