// The one-way seams of docs/architecture.md, checked by `npm run lint`:
//   cli -> (api | jobs | src | services | devnet) -> lib
// api reaches jobs/ only through the queue's producer; production code (lib, jobs, api, src)
// never loads devnet/ (the local world: chains and stand-ins) or test/. Generated abis/ may
// be imported by anyone.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "lib-is-the-bottom",
      comment: "lib/ is shared by every role and imports none of them",
      severity: "error",
      from: { path: "^lib/" },
      to: { path: "^(api|jobs|src|services|devnet|cli|test|scripts|contracts)/" },
    },
    {
      name: "no-devnet-in-production",
      comment:
        "on BSC nothing under devnet/ is loaded: the CLI hands its record in as configuration",
      severity: "error",
      from: { path: "^(lib|jobs|api|src)/|^ponder\\.config\\.ts$", pathNot: "\\.test\\.ts$" },
      to: { path: "^devnet/" },
    },
    {
      name: "no-test-code-in-the-product",
      comment: "test-only code lives under test/; benchmarks may use test/helpers/ only",
      severity: "error",
      from: { path: "^(lib|jobs|api|src|services|devnet|cli)/", pathNot: "\\.test\\.ts$" },
      to: { path: "^test/" },
    },
    {
      name: "api-testing-is-for-tests",
      comment: "api/testing/ boots an app for the API's own tests; no product code loads it",
      severity: "error",
      from: {
        path: "^(lib|jobs|api|src|services|devnet|cli)/",
        pathNot: "\\.test\\.ts$|^api/testing/",
      },
      to: { path: "^api/testing/" },
    },
    {
      name: "scripts-use-test-support-only",
      severity: "error",
      from: { path: "^scripts/" },
      to: { path: "^test/", pathNot: "^test/helpers/" },
    },
    {
      name: "no-stand-in-internals",
      comment:
        "a stand-in (devnet/stand-ins/) is started by the CLI (or a test); everyone else talks to its client",
      severity: "error",
      from: { pathNot: "^(cli|test)/|^devnet/stand-ins/|\\.test\\.ts$" },
      to: { path: "^devnet/stand-ins/" },
    },
    {
      name: "api-shared-pieces-know-no-feature",
      comment:
        "api/http, api/middleware and the files at api/'s top (but app.ts) serve every feature and import none (docs/architecture.md)",
      severity: "error",
      from: {
        path: "^api/(http/|middleware/|[^/]+\\.ts$)",
        pathNot: "^api/app\\.ts$|\\.test\\.ts$",
      },
      to: {
        path: "^api/(agent-launch|deposit-launch|market|dashboard|sessions|events|webhooks|policy|ops|ws)/",
      },
    },
    {
      name: "api-top-files-are-the-floor",
      comment:
        "env.ts, errors.ts, limits.ts, session.ts, settings.ts... are the floor under api/http and api/middleware: they import no folder of api/ (app.ts, the top, assembles them all)",
      severity: "error",
      from: { path: "^api/[^/]+\\.ts$", pathNot: "^api/app\\.ts$|\\.test\\.ts$" },
      to: { path: "^api/[^/]+/" },
    },
    {
      name: "api-features-stand-apart",
      comment:
        "a feature folder of api/ imports the shared pieces and lib/, never another feature: no seam runs both ways",
      severity: "error",
      from: {
        path: "^api/(agent-launch|deposit-launch|market|dashboard|sessions|events|webhooks|policy|ops)/",
        pathNot: "\\.test\\.ts$",
      },
      to: {
        path: "^api/(agent-launch|deposit-launch|market|dashboard|sessions|events|webhooks|policy|ops|ws)/",
        pathNot: "^api/$1/",
      },
    },
    {
      name: "app-enters-a-feature-through-its-register",
      comment: "app.ts calls one register per feature folder and reaches nothing else inside it",
      severity: "error",
      from: { path: "^api/app\\.ts$" },
      to: {
        path: "^api/(agent-launch|deposit-launch|market|dashboard|sessions|events|webhooks|policy|ops)/",
        pathNot: "/register\\.ts$",
      },
    },
    {
      name: "ws-carries-the-market-and-launch-records",
      comment:
        "the socket feed formats trades and launches as the market and deposit-launch routes do",
      severity: "error",
      from: { path: "^api/ws/", pathNot: "\\.test\\.ts$" },
      to: {
        path: "^api/(agent-launch|dashboard|sessions|events|webhooks|policy|ops)/",
      },
    },
    {
      name: "api-to-jobs-only-through-the-producer",
      severity: "error",
      from: { path: "^api/" },
      to: { path: "^jobs/", pathNot: "^jobs/launch/producer\\.ts$" },
    },
    {
      name: "jobs-never-import-api",
      severity: "error",
      from: { path: "^jobs/" },
      to: { path: "^(api|src|cli)/" },
    },
    {
      name: "src-is-the-indexer-only",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(api|jobs|services|cli)/" },
    },
    {
      name: "services-are-below-the-roles",
      severity: "error",
      from: { path: "^services/" },
      to: { path: "^(api|jobs|src|cli)/" },
    },
    {
      name: "service-clients-never-import-devnet",
      comment:
        "services/ holds the production clients only: the stand-ins live in devnet/stand-ins/",
      severity: "error",
      from: { path: "^services/" },
      to: { path: "^devnet/" },
    },
    {
      name: "devnet-is-below-the-cli",
      severity: "error",
      from: { path: "^devnet/" },
      to: { path: "^(api|jobs|src|cli)/" },
    },
    {
      name: "only-stand-ins-speak-a-service-protocol",
      comment:
        "a stand-in speaks its service's protocol (services/<name>/); the rest of devnet/ reaches the stand-ins over HTTP, at URLs the CLI hands in",
      severity: "error",
      from: { path: "^devnet/", pathNot: "^devnet/stand-ins/" },
      to: { path: "^services/" },
    },
    {
      name: "web-is-a-client-of-the-api",
      comment:
        "the web role reads the API over HTTP and WebSocket only: no database, no api/ internals",
      severity: "error",
      from: { path: "^web/" },
      to: { path: "^(api|jobs|src|services|devnet|cli|test|scripts|contracts)/" },
    },
    {
      name: "only-the-cli-starts-the-web-app",
      comment: "nothing imports web/ but the CLI (and the web app's tests and benchmark)",
      severity: "error",
      from: { pathNot: "^(cli|web|test|scripts)/" },
      to: { path: "^web/" },
    },
    {
      name: "only-the-cli-entry-imports-cli",
      severity: "error",
      // The inventory test lists the routes of the app exactly as `launchpad api` builds it.
      from: { pathNot: "^(cli|bin)/|^test/harness/inventory\\.test\\.ts$" },
      to: { path: "^cli/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|abis|\\.launchpad)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".json"] },
  },
};
