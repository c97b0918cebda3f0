/**
 * Configuration variables renamed, old name -> new name. Until the next release the old name
 * still works (the new one wins where both are set), with a warning at start: a deployment's
 * environment written for the old name keeps running while its operator renames it.
 */
export const RENAMED_VARIABLES: Readonly<Record<string, string>> = {
  LAUNCHPAD_API_URL: "FOUR_MEME_API_URL",
  LAUNCHPAD_API_PORT: "FOUR_MEME_API_PORT",
};

/** The old names this process has warned of: a role loads its configuration more than once. */
const warned = new Set<string>();

/** Writes the warning once per old name and process, as a line on stderr. */
export function warnOnce(message: string, old: string): void {
  if (warned.has(old)) return;
  warned.add(old);
  console.error(`launchpad: ${message}`);
}

/**
 * Moves each old variable of `env` (changed in place) to its new name, unless the new name is
 * set, and warns of each old one found.
 *
 * @example
 * const env = { LAUNCHPAD_API_URL: "https://four.meme/meme-api" };
 * renameVariables(env, console.warn); // env is { FOUR_MEME_API_URL: "https://four.meme/meme-api" }
 * // "LAUNCHPAD_API_URL is renamed FOUR_MEME_API_URL; the old name goes in the next release"
 */
export function renameVariables(
  env: Record<string, string | undefined>,
  warn: (message: string, old: string) => void = warnOnce,
): void {
  for (const [old, name] of Object.entries(RENAMED_VARIABLES)) {
    if (env[old] === undefined) continue;
    env[name] ??= env[old];
    delete env[old];
    warn(`${old} is renamed ${name}; the old name goes in the next release`, old);
  }
}
