import { createServer, type Server } from "node:http";
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCS_PAGE, DOCS_RENDERER } from "../../api/ops/discovery.ts";
import { launchBrowser } from "./browser.ts";

// /docs runs a renderer from a CDN on the API's origin. The CDN is outside this machine's reach,
// so the browser is handed the CDN's answer here: what a tampered or republished file does.

let browser: Browser;
let server: Server;
let origin: string;
/** What the server answers for /docs. */
let html = DOCS_PAGE;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader("content-type", req.url === "/openapi.json" ? "application/json" : "text/html");
    res.end(req.url === "/openapi.json" ? '{"openapi":"3.1.0","paths":{}}' : html);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
});

/**
 * Opens /docs (served as `served`, the real page by default) with the CDN answering `body` for the renderer;
 * what the page then ran.
 */
async function openDocs(body: string, served = DOCS_PAGE) {
  html = served;
  const page = await browser.newPage();
  await page.setRequestInterception(true);
  page.on("request", (r) => {
    if (r.url() === DOCS_RENDERER.src) {
      return r.respond({
        status: 200,
        contentType: "application/javascript",
        headers: { "access-control-allow-origin": "*" },
        body,
      });
    }
    return r.url().startsWith(origin) ? r.continue() : r.abort();
  });
  const console: string[] = [];
  page.on("console", (m) => console.push(m.text()));
  await page.goto(`${origin}/docs`, { waitUntil: "networkidle0" });
  const ran = await page.evaluate("window.ran === true");
  await page.close();
  return { ran, console };
}

describe("GET /docs", () => {
  it("pins the renderer to one version and an integrity hash", () => {
    expect(DOCS_RENDERER.src).toMatch(/@scalar\/api-reference@\d+\.\d+\.\d+\//);
    expect(DOCS_RENDERER.integrity).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
    expect(DOCS_PAGE).toContain(`integrity="${DOCS_RENDERER.integrity}"`);
  });

  it("runs no script the CDN swapped in (the browser refuses it)", async () => {
    const { ran, console } = await openDocs("window.ran = true;");
    expect(ran).toBe(false);
    expect(console.join("\n")).toMatch(/integrity/i);
  }, 60_000);

  it("would run the swapped file without the integrity attribute (the check above can fail)", async () => {
    const unchecked = DOCS_PAGE.replace(/ integrity="[^"]+"/, "");
    expect((await openDocs("window.ran = true;", unchecked)).ran).toBe(true);
  }, 60_000);
});
