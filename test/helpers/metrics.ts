/** One sample of a Prometheus text exposition: name, labels, value. */
export type Sample = { name: string; labels: Record<string, string>; value: number };

/** The samples of a text-format scrape (comments and blank lines skipped). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1] as string] = l[2] as string;
    }
    samples.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return samples;
}

/** The sum of a series over the samples whose labels include `labels`. */
export function sumOf(samples: Sample[], name: string, labels: Record<string, string> = {}) {
  return samples
    .filter((s) => s.name === name)
    .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);
}

/** Scrapes one role's GET /metrics. */
export async function scrapeMetrics(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  return parseMetrics(await res.text());
}
