import { spawnSync } from "node:child_process";
import {
  accessSync,
  constants,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, ROOT } from "./helpers/cli.ts";

// The systemd units in deploy/systemd (docs/deploy.md) as systemd itself reads them, and the
// commands they run as the CLI really has them.

const UNITS_DIR = join(ROOT, "deploy", "systemd");
/** Where the units expect the release; the test renders them onto this checkout instead. */
const INSTALL_DIR = "/opt/launchpad";
const SYSTEMD_ANALYZE = "/usr/bin/systemd-analyze";
/** An instance of each template, named as docs/deploy.md names them (the port). */
const INSTANCES: Record<string, string> = {
  "launchpad-api@.service": "launchpad-api@3001.service",
  "launchpad-worker@.service": "launchpad-worker@9464.service",
};
/** The exit code of a configuration error (cli/main.ts), which no unit may restart on. */
const CONFIG_ERROR_EXIT = 2;

const unitFiles = readdirSync(UNITS_DIR).filter((f) => /\.(service|target)$/.test(f));
const services = unitFiles.filter((f) => f.endsWith(".service"));

/** The values of `key=` in a unit file, in order (comments and other sections included). */
function values(text: string, key: string): string[] {
  return text
    .split("\n")
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));
}

/** The unit as this checkout would install it: /opt/launchpad is the checkout. */
function render(text: string): string {
  return text.replaceAll(INSTALL_DIR, ROOT);
}

type Verify = { status: number | null; lines: string[] };

/** `systemd-analyze verify` on unit files in `dir` (templates by an instance's name). */
function verify(dir: string, names: string[]): Verify {
  const r = spawnSync(SYSTEMD_ANALYZE, ["verify", "--man=no", ...names.map((n) => join(dir, n))], {
    cwd: dir,
    encoding: "utf8",
    // Its own view of the machine's units (network-online.target, postgresql.service, ...).
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", SYSTEMD_LOG_COLOR: "0" },
    timeout: 60_000,
  });
  if (r.error) throw r.error;
  const lines = `${r.stdout}\n${r.stderr}`.split("\n").filter((l) => l.trim() !== "");
  return { status: r.status, lines };
}

/** What verify says about these units (a machine's own units may have their own remarks). */
function aboutUnits(lines: string[], dir: string): string[] {
  return lines.filter((l) => l.includes(dir) || l.includes("launchpad"));
}

describe("systemd units (deploy/systemd)", () => {
  let dir: string;
  const made: string[] = [];
  const tempDir = (prefix: string) => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    made.push(d);
    return d;
  };

  beforeAll(() => {
    try {
      accessSync(SYSTEMD_ANALYZE, constants.X_OK);
    } catch {
      throw new Error(
        `${SYSTEMD_ANALYZE} is missing: this test checks deploy/systemd with \`systemd-analyze verify\` and cannot run without it (Debian/Ubuntu: apt-get install systemd)`,
      );
    }
    dir = tempDir("launchpad-units-");
    for (const f of unitFiles)
      writeFileSync(join(dir, f), render(readFileSync(join(UNITS_DIR, f), "utf8")));
  });

  afterAll(() => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
  });

  it("has a unit per role and the target", () => {
    expect(unitFiles.sort()).toEqual([
      "launchpad-api@.service",
      "launchpad-indexer.service",
      "launchpad-web.service",
      "launchpad-worker@.service",
      "launchpad.target",
    ]);
  });

  it("passes systemd-analyze verify with nothing to say about them", () => {
    const names = unitFiles.map((f) => INSTANCES[f] ?? f);
    const r = verify(dir, names);
    const remarks = aboutUnits(r.lines, dir);
    expect(remarks, r.lines.join("\n")).toEqual([]);
    expect(r.status, r.lines.join("\n")).toBe(0);
  });

  it("the check is not blind: a unit with an unknown key and a missing command is reported", () => {
    const broken = tempDir("launchpad-units-broken-");
    const text = render(readFileSync(join(UNITS_DIR, "launchpad-web.service"), "utf8"))
      .replace(/^Restart=always$/m, "Restart=always\nRestartForever=yes")
      .replace(`${ROOT}/node_modules/node/bin/node`, `${ROOT}/node_modules/node/bin/no-such-node`);
    writeFileSync(join(broken, "launchpad-web.service"), text);
    const r = verify(broken, ["launchpad-web.service"]);
    const remarks = aboutUnits(r.lines, broken).join("\n");
    expect(remarks).toMatch(/Unknown key name 'RestartForever'|Unknown key 'RestartForever'/);
    expect(remarks).toMatch(/no-such-node is not executable/);
    expect(r.status).not.toBe(0);
  });

  // The commands `launchpad --help` lists, by the very node and entry point the units run.
  function listedCommands(node: string, bin: string): string[] {
    const r = spawnSync(node, [bin, "--help"], { cwd: ROOT, encoding: "utf8", env: cleanEnv({}) });
    expect(r.status, r.stderr).toBe(0);
    const after = r.stdout.split(/^Commands:$/m)[1] ?? "";
    return after
      .split("\n")
      .map((l) => /^ {2}([a-z][a-z-]*)/.exec(l)?.[1])
      .filter((c): c is string => c !== undefined);
  }

  it.each(services)("%s runs `node bin/launchpad.js <a command launchpad --help lists>`", (f) => {
    const text = readFileSync(join(UNITS_DIR, f), "utf8");
    const execStart = values(text, "ExecStart");
    expect(execStart).toHaveLength(1);
    const [node, bin, command, ...rest] = render(execStart[0] as string).split(/\s+/);
    expect(node).toBe(join(ROOT, "node_modules", "node", "bin", "node"));
    expect(bin).toBe(join(ROOT, "bin", "launchpad.js"));
    expect(rest).toEqual([]);
    const listed = listedCommands(node as string, bin as string);
    expect(listed).toContain("api");
    expect(listed).toContain(command);
    // The unit's file name says which role it is.
    expect(f).toMatch(new RegExp(`^launchpad-${command}[@.]`));
  });

  it.each(services)("%s makes writable only what exists in a release", (f) => {
    // A missing ReadWritePaths= entry fails the unit at start (status 226/NAMESPACE), and
    // verify does not look: ponder-env.d.ts is tracked, and Ponder rewrites it in place.
    const text = readFileSync(join(UNITS_DIR, f), "utf8");
    for (const path of values(text, "ReadWritePaths").flatMap((v) => v.split(/\s+/))) {
      expect(path.startsWith(`${INSTALL_DIR}/`), path).toBe(true);
      const tracked = spawnSync(
        "git",
        ["ls-files", "--error-unmatch", path.slice(INSTALL_DIR.length + 1)],
        {
          cwd: ROOT,
          encoding: "utf8",
        },
      );
      expect(tracked.status, `${path} is not a file of the release`).toBe(0);
    }
    expect(values(text, "StateDirectory")).toEqual(["launchpad"]);
    expect(text).toMatch(/^Environment=.*\bLAUNCHPAD_DATA_DIR=\/var\/lib\/launchpad\b/m);
  });

  it.each(services)("%s does not restart on the CLI's configuration-error exit", (f) => {
    const text = readFileSync(join(UNITS_DIR, f), "utf8");
    expect(values(text, "RestartPreventExitStatus")).toEqual([String(CONFIG_ERROR_EXIT)]);
    expect(values(text, "Restart")).toEqual(["always"]);
    expect(values(text, "StartLimitIntervalSec")).toEqual(["0"]);
    expect(values(text, "User")).toEqual(["launchpad"]);
    expect(values(text, "EnvironmentFile")[0]).toBe("/etc/launchpad/launchpad.env");

    // The role's own command, as the unit runs it, with a malformed variable: it must end with
    // exactly the code the unit refuses to restart on, and one line naming the variable.
    const [node, bin, command] = render(values(text, "ExecStart")[0] as string).split(/\s+/);
    const r = spawnSync(node as string, [bin as string, command as string], {
      cwd: ROOT,
      encoding: "utf8",
      env: cleanEnv({ LOG_LEVEL: "loud", LAUNCHPAD_DATA_DIR: tempDir("launchpad-data-") }),
      timeout: 60_000,
    });
    expect(r.stderr.trim()).toMatch(/^launchpad: LOG_LEVEL: /);
    expect(r.status).toBe(CONFIG_ERROR_EXIT);
  });
});
