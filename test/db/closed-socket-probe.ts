/**
 * Runs the two ways a postgres.js connection is written to after its backend died (upstream
 * issues #1066, #1154, #1208), with the driver found in the directory given as argv[2] against
 * the database at argv[3]. Prints one JSON line of what each query did; an unpatched driver
 * never gets there: the process dies of "Cannot read properties of null (reading 'write')".
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [driverDir = "", url = ""] = process.argv.slice(2);
const { default: postgres } = (await import(
  pathToFileURL(join(driverDir, "src", "index.js")).href
)) as { default: typeof import("postgres") };

const sql = postgres(url, { max: 2, onnotice: () => {} });
const killer = postgres(url, { max: 1, onnotice: () => {} });
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: { code?: string }) => e.code ?? "error",
  );

// A reserved connection (what a transaction holds): its backend ends, then it is used twice.
const reserved = await sql.reserve();
const [row] = await reserved`select pg_backend_pid() as pid`;
await killer`select pg_terminate_backend(${row?.pid as number})`;
// Let the driver see the socket close first: a query sent before it would still find a socket
// and only fail, not reach the null-socket write (on a loaded machine the close came late).
await new Promise((r) => setTimeout(r, 500));
const reservedFirst = await outcome(reserved`select 1`);
const reservedSecond = await outcome(reserved`select 1`);
reserved.release();

// A transaction whose backend ends mid-statement: the driver's own rollback writes to it.
const transaction = outcome(
  sql.begin(async (tx: import("postgres").TransactionSql) => {
    await tx`select pg_sleep(30)`;
  }),
);
await new Promise((r) => setTimeout(r, 300));
await killer`select pg_terminate_backend(pid) from pg_stat_activity where query like '%pg_sleep(30)%' and pid <> pg_backend_pid()`;
const transactionOutcome = await transaction;
// Let the rollback's write run before asking again.
await new Promise((r) => setTimeout(r, 300));
const after = await outcome(sql`select 1`);

process.stdout.write(
  `${JSON.stringify({ reservedFirst, reservedSecond, transaction: transactionOutcome, after })}\n`,
);
await Promise.all([sql.end({ timeout: 1 }), killer.end({ timeout: 1 })]);
