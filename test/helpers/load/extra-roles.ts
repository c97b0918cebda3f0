import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { freeListenPort } from "../../../lib/local/net.ts";
import { cleanEnv, ROOT } from "../cli.ts";

const BIN = join(ROOT, "bin", "launchpad.js");

/**
 * Further API and worker processes beside the stack's one of each, as an operator runs them on
 * more machines (`launchpad api`, `launchpad worker` on the same DATABASE_URL and RPC): each on
 * its own port, started as the supervisor starts a role, ready once it says so over IPC.
 *
 * @example
 * const extra = await startExtraRoles({ env, apis: 1, workers: 1 });
 * const apiUrls = [stack.apiUrl, ...extra.apiUrls];
 */
export async function startExtraRoles(p: {
  env: Record<string, string>;
  apis: number;
  workers: number;
}): Promise<{ apiUrls: string[]; pids: () => number[]; stop: () => Promise<void> }> {
  const children: ChildProcess[] = [];
  const apiUrls: string[] = [];
  const start = async (role: "api" | "worker", ports: Record<string, string>) => {
    const child = spawn(process.execPath, [BIN, role], {
      cwd: ROOT,
      env: cleanEnv({ ...p.env, ...ports, LOG_LEVEL: "warn" }),
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    children.push(child);
    let err = "";
    child.stderr?.on("data", (d) => {
      err = (err + d).slice(-4000);
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${role} not ready in 120 s:\n${err}`)),
        120_000,
      );
      child.on("message", (m: { type?: string }) => {
        if (m?.type !== "ready") return;
        clearTimeout(timer);
        resolve();
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`${role} exited (code ${code}):\n${err}`));
      });
    });
  };
  const stop = async () => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            const timer = setTimeout(() => c.kill("SIGKILL"), 20_000);
            c.once("exit", () => {
              clearTimeout(timer);
              resolve();
            });
            c.kill("SIGTERM");
          }),
      ),
    );
  };
  try {
    for (let i = 0; i < p.apis; i++) {
      const port = String(await freeListenPort());
      await start("api", { PORT: port });
      apiUrls.push(`http://127.0.0.1:${port}`);
    }
    for (let i = 0; i < p.workers; i++)
      await start("worker", { WORKER_METRICS_PORT: String(await freeListenPort()) });
  } catch (error) {
    // One that never became ready must not outlive the run, nor those started before it.
    await stop();
    throw error;
  }
  return {
    apiUrls,
    pids: () => children.flatMap((c) => (c.pid && c.exitCode === null ? [c.pid] : [])),
    stop,
  };
}
