// Connections held per pool (application_name) and state, and max_connections: the measurement
// behind docs/operations.md, "Connection budget". Usage: node scripts/connections.ts [postgres URL, default DATABASE_URL]
import postgres from "postgres";

const sql = postgres((process.argv[2] ?? process.env.DATABASE_URL) as string, {
  max: 1,
  onnotice: () => {},
});
const rows = await sql`
  select coalesce(nullif(application_name, ''), '(unnamed)') as app, state, count(*)::int as n
  from pg_stat_activity
  where backend_type = 'client backend' and pid <> pg_backend_pid()
  group by 1, 2 order by 1, 2`;
for (const r of rows) console.log(`${String(r.n).padStart(3)}  ${r.app}  ${r.state}`);
console.log(`${String(rows.reduce((a, r) => a + r.n, 0)).padStart(3)}  total`);
const [m] = await sql`show max_connections`;
console.log(`max_connections = ${m?.max_connections}`);
await sql.end();
