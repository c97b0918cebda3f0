// `npm test [-- <vitest arguments>]`: vitest inside the public world (test/helpers/world/), a
// network and mount namespace of its own where the outside services have public addresses and
// DNS names served over TLS from a test CA. The run's ports are its own too: two runs side by
// side (two checkouts) cannot take each other's. Where the namespace cannot be made (not root,
// no unshare), vitest runs here and every test that needs the world fails saying why.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configureWorldNamespace, makeWorldCertificates } from "../test/helpers/world/make.ts";
import {
  WORLD_UNAVAILABLE_VARIABLE,
  WORLD_VARIABLE,
  type WorldFiles,
} from "../test/helpers/world/world.ts";

const VITEST = join(import.meta.dirname, "..", "node_modules", "vitest", "vitest.mjs");
const INSIDE = "LAUNCHPAD_WORLD_INSIDE";
const args = process.argv.slice(2);

if (process.env[INSIDE] === "1") inside();
else outside();

function outside(): void {
  const why = cannotEnter();
  if (why) {
    console.error(`npm test: the public world cannot be made here (${why}); its tests will fail`);
    run(process.execPath, [VITEST, "run", ...args], { [WORLD_UNAVAILABLE_VARIABLE]: why });
    return;
  }
  run("unshare", ["--net", "--mount", "--", process.execPath, import.meta.filename, ...args], {
    [INSIDE]: "1",
  });
}

function inside(): void {
  const dir = mkdtempSync(join(tmpdir(), "launchpad-world-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  let files: WorldFiles;
  try {
    const hosts = configureWorldNamespace(dir);
    files = { ...makeWorldCertificates(dir), hosts };
  } catch (error) {
    const why = (error as Error).message;
    console.error(`npm test: the public world could not be made (${why}); its tests will fail`);
    run(process.execPath, [VITEST, "run", ...args], { [WORLD_UNAVAILABLE_VARIABLE]: why });
    return;
  }
  const descriptor = join(dir, "world.json");
  writeFileSync(descriptor, JSON.stringify(files));
  run(process.execPath, [VITEST, "run", ...args], {
    [WORLD_VARIABLE]: descriptor,
    NODE_EXTRA_CA_CERTS: files.ca,
  });
}

/** Why `unshare --net --mount` will not work here, or undefined when it should. */
function cannotEnter(): string | undefined {
  if (process.platform !== "linux") return `${process.platform} has no network namespaces`;
  if (process.getuid?.() !== 0) return "a network namespace needs root (CAP_SYS_ADMIN)";
  const probe = spawnSync("unshare", ["--net", "--mount", "true"], { encoding: "utf8" });
  if (probe.error) return `unshare: ${probe.error.message}`;
  if (probe.status !== 0) return `unshare --net --mount: ${probe.stderr.trim()}`;
  return undefined;
}

/** Runs a command with stdio passed through; this process exits with its status. */
function run(command: string, argv: string[], env: Record<string, string>): void {
  const child = spawn(command, argv, { stdio: "inherit", env: { ...process.env, ...env } });
  // Ctrl-C reaches the whole foreground group; a TERM from a supervisor is passed on.
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  process.on("SIGINT", () => {});
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
