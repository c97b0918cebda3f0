// The one-way seams of docs/architecture.md, checked by `npm run lint`:
//   cli -> (api | jobs | src | services | devnet) -> lib
// api reaches jobs/ only through the queue's producer; production code (lib, jobs, api, src)
// never loads devnet/ (the local world: chains and stand-ins) or test/. Generated abis/ may
// be imported by anyone.

const FEATURES = "agent-launch|deposit-launch|market|dashboard|sessions|events|webhooks|policy|ops";
const TESTS = "\\.test\\.ts$";

/**
 * One forbidden import, always an error: `from` and `to` are path patterns, or objects of
 * `path`/`pathNot` where a rule needs an exception.
 */
function forbid(name, from, to, comment) {
  const paths = (p) => (typeof p === "string" ? { path: p } : p);
  return { name, ...(comment && { comment }), severity: "error", from: paths(from), to: paths(to) };
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    forbid(
      "lib-is-the-bottom",
      "^lib/",
      "^(api|jobs|src|services|devnet|cli|test|scripts|contracts)/",
      "lib/ is shared by every role and imports none of them",
    ),
    forbid(
      "no-devnet-in-production",
      { path: "^(lib|jobs|api|src)/|^ponder\\.config\\.ts$", pathNot: TESTS },
      "^devnet/",
      "on BSC nothing under devnet/ is loaded: the CLI hands its record in as configuration",
    ),
    forbid(
      "local-plumbing-stays-local",
      {
        path: "^(api|jobs|src|services|web|lib)/|^ponder\\.config\\.ts$",
        pathNot: `${TESTS}|^api/testing/|^lib/local/|^lib/db/url\\.ts$`,
      },
      "^lib/local/",
      "lib/local/ is one machine's plumbing (embedded Postgres, pid files, ports): no role's production path loads it",
    ),
    forbid(
      "no-test-code-in-the-product",
      { path: "^(lib|jobs|api|src|services|devnet|cli)/", pathNot: TESTS },
      "^test/",
      "test-only code lives under test/; benchmarks may use test/helpers/ only",
    ),
    forbid(
      "api-testing-is-for-tests",
      { path: "^(lib|jobs|api|src|services|devnet|cli)/", pathNot: `${TESTS}|^api/testing/` },
      "^api/testing/",
      "api/testing/ boots an app for the API's own tests; no product code loads it",
    ),
    forbid("scripts-use-test-support-only", "^scripts/", {
      path: "^test/",
      pathNot: "^test/helpers/",
    }),
    forbid(
      "no-stand-in-internals",
      { pathNot: `^(cli|test)/|^devnet/stand-ins/|${TESTS}` },
      "^devnet/stand-ins/",
      "a stand-in (devnet/stand-ins/) is started by the CLI (or a test); everyone else talks to its client",
    ),
    forbid(
      "api-shared-pieces-know-no-feature",
      { path: "^api/(http/|middleware/|[^/]+\\.ts$)", pathNot: `^api/app\\.ts$|${TESTS}` },
      `^api/(${FEATURES}|ws)/`,
      "api/http, api/middleware and the files at api/'s top (but app.ts) serve every feature and import none (docs/architecture.md)",
    ),
    forbid(
      "api-top-files-are-the-floor",
      { path: "^api/[^/]+\\.ts$", pathNot: `^api/app\\.ts$|${TESTS}` },
      "^api/[^/]+/",
      "env.ts, errors.ts, limits.ts, session.ts, settings.ts... are the floor under api/http and api/middleware: they import no folder of api/ (app.ts, the top, assembles them all)",
    ),
    forbid(
      "api-features-stand-apart",
      { path: `^api/(${FEATURES})/`, pathNot: TESTS },
      { path: `^api/(${FEATURES}|ws)/`, pathNot: "^api/$1/" },
      "a feature folder of api/ imports the shared pieces and lib/, never another feature: no seam runs both ways",
    ),
    forbid(
      "app-enters-a-feature-through-its-register",
      "^api/app\\.ts$",
      { path: `^api/(${FEATURES})/`, pathNot: "/register\\.ts$" },
      "app.ts calls one register per feature folder and reaches nothing else inside it",
    ),
    forbid(
      "ws-carries-the-market-and-launch-records",
      { path: "^api/ws/", pathNot: TESTS },
      "^api/(agent-launch|dashboard|sessions|events|webhooks|policy|ops)/",
      "the socket feed formats trades and launches as the market and deposit-launch routes do",
    ),
    forbid("api-to-jobs-only-through-the-producer", "^api/", {
      path: "^jobs/",
      pathNot: "^jobs/launch/producer\\.ts$",
    }),
    forbid("jobs-never-import-api", "^jobs/", "^(api|src|cli)/"),
    forbid("src-is-the-indexer-only", "^src/", "^(api|jobs|services|cli)/"),
    forbid("services-are-below-the-roles", "^services/", "^(api|jobs|src|cli)/"),
    forbid(
      "service-clients-never-import-devnet",
      "^services/",
      "^devnet/",
      "services/ holds the production clients only: the stand-ins live in devnet/stand-ins/",
    ),
    forbid("devnet-is-below-the-cli", "^devnet/", "^(api|jobs|src|cli)/"),
    forbid(
      "only-stand-ins-speak-a-service-protocol",
      { path: "^devnet/", pathNot: "^devnet/stand-ins/" },
      "^services/",
      "a stand-in speaks its service's protocol (services/<name>/); the rest of devnet/ reaches the stand-ins over HTTP, at URLs the CLI hands in",
    ),
    forbid(
      "web-is-a-client-of-the-api",
      "^web/",
      "^(api|jobs|src|services|devnet|cli|test|scripts|contracts)/",
      "the web role reads the API over HTTP and WebSocket only: no database, no api/ internals",
    ),
    forbid(
      "only-the-cli-starts-the-web-app",
      { pathNot: "^(cli|web|test|scripts)/" },
      "^web/",
      "nothing imports web/ but the CLI (and the web app's tests and benchmark)",
    ),
    // The inventory test lists the routes of the app exactly as `launchpad api` builds it.
    forbid(
      "only-the-cli-entry-imports-cli",
      { pathNot: "^(cli|bin)/|^test/harness/inventory\\.test\\.ts$" },
      "^cli/",
    ),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|abis|\\.launchpad)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".json"] },
  },
};
