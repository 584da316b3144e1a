// Lighthouse (mobile profile, its default simulated slow 4G and CPU) over each page given, one
// Chromium for all: `node lighthouse.mjs CHROMIUM BASE_URL PAGE...` prints one JSON object per page
// on stdout: its four category scores and the bytes it transferred (as served, so gzipped), by type.
// tests/browser/test_lighthouse.py runs it and judges the budgets.
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";

const [chromium, base, ...pages] = process.argv.slice(2);
const chrome = await chromeLauncher.launch({
  chromePath: chromium,
  chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"],
});
// The first run in a fresh Chromium pays for its start-up (measured: the first page scored 0.84-0.89
// in performance, 0.96-0.98 when run again): one unreported run first, as a warm static host would.
const settings = { output: "json", logLevel: "error", onlyCategories: ["performance", "accessibility", "best-practices", "seo"] };
try {
  if (pages.length) await lighthouse(base + pages[0], { port: chrome.port, ...settings });
  for (const page of pages) {
    const { lhr } = await lighthouse(base + page, { port: chrome.port, ...settings });
    if (lhr.runtimeError) throw new Error(`${page}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
    const byType = {};
    for (const item of lhr.audits["resource-summary"].details.items) byType[item.resourceType] = item.transferSize;
    console.log(JSON.stringify({
      page,
      scores: Object.fromEntries(Object.entries(lhr.categories).map(([id, category]) => [id, category.score])),
      transferred_bytes: lhr.audits["total-byte-weight"].numericValue,
      bytes_by_type: byType,
      first_contentful_paint_ms: lhr.audits["first-contentful-paint"].numericValue,
      largest_contentful_paint_ms: lhr.audits["largest-contentful-paint"].numericValue,
      total_blocking_time_ms: lhr.audits["total-blocking-time"].numericValue,
      cumulative_layout_shift: lhr.audits["cumulative-layout-shift"].numericValue,
      speed_index_ms: lhr.audits["speed-index"].numericValue,
      render_blocking: (lhr.audits["render-blocking-insight"] ?? lhr.audits["render-blocking-resources"])?.details?.items
        ?.map((item) => item.url.split("/").pop()) ?? [],
      failed_audits: Object.values(lhr.audits)
        .filter((audit) => audit.score !== null && audit.score < 1 && audit.scoreDisplayMode === "binary")
        .map((audit) => audit.id),
    }));
  }
} finally {
  await chrome.kill();
}
