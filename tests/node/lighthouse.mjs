// Lighthouse (mobile profile: simulated slow 4G and a slowed CPU) over each page given, one Chromium
// for all: `node lighthouse.mjs CHROMIUM BASE_URL PAGE...` prints one JSON object per page on stdout:
// its four category scores, the bytes it transferred (as served, so gzipped) by type, its timings,
// and the CPU slowdown it was measured with. tests/browser/test_lighthouse.py runs it and judges the
// budgets.
//
// Lighthouse slows the CPU by a multiplier of the host's speed, so its mobile device is only the one
// it means when the multiplier fits the host. As its docs/throttling.md asks ("Calibrating the CPU
// slowdown"), the multiplier comes from the host's benchmark index, measured by an unreported first
// run, with the formula of the calculator those docs link (lighthouse-cpu-throttling-calculator).
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";

const [chromium, base, ...pages] = process.argv.slice(2);
const chrome = await chromeLauncher.launch({
  chromePath: chromium,
  chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"],
});
// No full-page screenshot: no budget reads it.
const settings = { output: "json", logLevel: "error", disableFullPageScreenshot: true,
                   onlyCategories: ["performance", "accessibility", "best-practices", "seo"] };

// The calculator's multiplier for a host of this benchmark index; never below 1 (no speed-up).
function cpuSlowdownFor(benchmarkIndex) {
  if (benchmarkIndex >= 1300) return 3 + (benchmarkIndex - 1300) / 233;
  if (benchmarkIndex >= 800) return 2 + (benchmarkIndex - 800) / 500;
  return Math.max(1, 1 + (benchmarkIndex - 150) / 650);
}

async function run(page, cpuSlowdownMultiplier) {
  const throttling = cpuSlowdownMultiplier ? { throttling: { cpuSlowdownMultiplier } } : {};
  const { lhr } = await lighthouse(base + page, { port: chrome.port, ...settings, ...throttling });
  if (lhr.runtimeError) throw new Error(`${page}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
  return lhr;
}

try {
  // The first run also pays for Chromium's start-up: it only measures the host.
  const host = pages.length ? (await run(pages[0])).environment.benchmarkIndex : 0;
  const cpuSlowdown = Math.round(cpuSlowdownFor(host) * 100) / 100;
  for (const page of pages) {
    const lhr = await run(page, cpuSlowdown);
    const byType = {};
    for (const item of lhr.audits["resource-summary"].details.items) byType[item.resourceType] = item.transferSize;
    console.log(JSON.stringify({
      page,
      scores: Object.fromEntries(Object.entries(lhr.categories).map(([id, category]) => [id, category.score])),
      transferred_bytes: lhr.audits["total-byte-weight"].numericValue,
      bytes_by_type: byType,
      host_benchmark_index: { calibrated_on: host, this_run: lhr.environment.benchmarkIndex },
      cpu_slowdown: cpuSlowdown,
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
