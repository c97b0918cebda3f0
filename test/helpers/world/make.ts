import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import { WORLD_HOSTS, type WorldFiles, worldAddresses } from "./world.ts";

/**
 * Configures the namespace this process is in (made by `unshare --net --mount`) as the public
 * world: loopback up carrying the world's addresses, and a hosts file naming them bound over
 * /etc/hosts (in this mount namespace only); returns that file's path. Throws with the
 * command's own words on failure.
 */
export function configureWorldNamespace(dir: string): string {
  run("ip", ["link", "set", "lo", "up"]);
  for (const address of worldAddresses()) {
    const v6 = isIP(address) === 6;
    run("ip", [...(v6 ? ["-6"] : []), "addr", "add", `${address}/${v6 ? 128 : 32}`, "dev", "lo"]);
  }
  const hosts = join(dir, "hosts");
  const lines = ["127.0.0.1 localhost", "::1 localhost ip6-localhost ip6-loopback"];
  for (const [name, addresses] of Object.entries(WORLD_HOSTS))
    for (const a of addresses) lines.push(`${a} ${name}`);
  writeFileSync(hosts, `${lines.join("\n")}\n`);
  run("mount", ["--bind", hosts, "/etc/hosts"]);
  return hosts;
}

/**
 * Writes a test CA and one server certificate for every name and address of the world, loopback
 * included (EC P-256, valid two days), with the system's openssl.
 */
export function makeWorldCertificates(dir: string): Omit<WorldFiles, "hosts"> {
  const f = (n: string) => join(dir, n);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  run("openssl", [
    "req",
    "-x509",
    ...ec,
    "-keyout",
    f("ca.key"),
    "-out",
    f("ca.pem"),
    "-days",
    "2",
    "-subj",
    "/CN=launchpad test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  run("openssl", [
    "req",
    ...ec,
    "-keyout",
    f("server.key"),
    "-out",
    f("server.csr"),
    "-subj",
    "/CN=world.example",
  ]);
  // The private targets too: a fetch that slipped past the guard would then succeed.
  const san = [
    ...["localhost", ...Object.keys(WORLD_HOSTS)].map((n) => `DNS:${n}`),
    ...["127.0.0.1", "::1", ...worldAddresses()].map((a) => `IP:${a}`),
  ].join(",");
  writeFileSync(
    f("server.ext"),
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=${san}\n`,
  );
  run("openssl", [
    "x509",
    "-req",
    "-in",
    f("server.csr"),
    "-CA",
    f("ca.pem"),
    "-CAkey",
    f("ca.key"),
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    f("server.ext"),
    "-out",
    f("server.pem"),
  ]);
  return {
    dir,
    ca: f("ca.pem"),
    cert: readFileSync(f("server.pem"), "utf8"),
    key: readFileSync(f("server.key"), "utf8"),
  };
}

function run(command: string, args: string[]): void {
  try {
    execFileSync(command, args, { stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`${command} ${args.join(" ")}: ${stderr || (error as Error).message}`);
  }
}
