// Lighthouse CI over every reader-facing page of the built site (BOOK_SITE; BOOK_PAGES, from
// conf/assemble_site.py's reader_pages, the pages the browser tests visit), with
// Lighthouse's mobile profile, as GitHub Pages serves the site: below the path of BOOK_SITE_URL, gzipped.
// nox (nox -s lighthouse; the last step of nox -s browser) runs `lhci collect` with this file in a few
// processes side by side, each over a share of the pages, then `lhci upload` and `lhci assert` over all
// the runs from build/: each page runs once (numberOfRuns: the judged budgets below do not depend on
// timing; more runs only steady the reported performance score), its report and
// build/lighthouse/manifest.json are written, and the budgets are judged on that run.
//
// Judged: accessibility, best practices and SEO at 1, each of their scored audits asserted too so a
// failure names the audit, and at most 250 KiB transferred. The performance score is reported, not
// judged: it times the page on the host (docs/decisions/lighthouse-performance.md).
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { categories } = require("lighthouse/core/config/default-config.js").default;

// The audits asserted below are read from the Lighthouse that lhci runs: package.json pins lhci's own.
const lhci = path.dirname(require.resolve("@lhci/cli/package.json"));
if (require.resolve("lighthouse") !== require.resolve("lighthouse", { paths: [lhci] })) {
  throw new Error("tests/node/package.json pins another Lighthouse than the one @lhci/cli runs");
}

const site = path.resolve(process.env.BOOK_SITE);
const subPath = new URL(process.env.BOOK_SITE_URL).pathname;
const everyPage = process.env.BOOK_PAGES.split(" ").filter(Boolean);  // e.g. en/index.html
if (!everyPage.length) throw new Error(`BOOK_PAGES names no page of ${site}`);

// lhci's server serves its folder from "/": the site is linked at the sub-path inside that folder.
const host = path.resolve("lighthouse-host");
fs.rmSync(host, { recursive: true, force: true });
const link = path.join(host, subPath.replace(/\/$/, ""));
fs.mkdirSync(path.dirname(link), { recursive: true });
fs.symlinkSync(site, link);

// Lighthouse slows the CPU by a multiplier of the host's speed; as its throttling guide asks
// (https://github.com/GoogleChrome/lighthouse/blob/main/docs/throttling.md), the multiplier fits the
// host: from the benchmark index of one unreported run, with the formula of the calculator those docs
// link, never below 1. Measured once, by nox before the collecting processes start; they inherit it.
const chromeFlags = "--no-sandbox --disable-gpu --no-first-run --disable-background-networking "
  + "--disable-component-update --disable-sync";
if (!process.env.BOOK_CPU_SLOWDOWN) {
  const lighthouse = path.join(require.resolve("lighthouse"), "../../cli/index.js");
  const probe = JSON.parse(execFileSync(process.execPath, [
    lighthouse, "chrome://version", "--output=json", "--quiet", "--only-audits=viewport",
    `--chrome-flags=--headless=new ${chromeFlags}`], { env: { ...process.env, CHROME_PATH: process.env.BOOK_CHROMIUM },
    maxBuffer: 1 << 28 }));
  const index = probe.environment.benchmarkIndex;
  const slowdown = index >= 1300 ? 3 + (index - 1300) / 233 : index >= 800 ? 2 + (index - 800) / 500
    : Math.max(1, 1 + (index - 150) / 650);
  process.env.BOOK_CPU_SLOWDOWN = slowdown.toFixed(2);
  console.log(`Lighthouse CPU slowdown ${process.env.BOOK_CPU_SLOWDOWN}x for host benchmark index ${index.toFixed(0)}`);
}

const judged = ["accessibility", "best-practices", "seo"];
const scoredAudits = judged.flatMap((id) => categories[id].auditRefs.filter((ref) => ref.weight > 0).map((ref) => ref.id));

module.exports = {
  ci: {
    collect: {
      staticDistDir: host,
      url: everyPage.map((page) => `http://localhost${subPath}${page}`),
      numberOfRuns: 1,
      chromePath: process.env.BOOK_CHROMIUM,
      settings: {
        formFactor: "mobile",
        chromeFlags,
        onlyCategories: ["performance", ...judged],
        disableFullPageScreenshot: true, // no budget reads it
        throttling: { cpuSlowdownMultiplier: Number(process.env.BOOK_CPU_SLOWDOWN) },
        // GitHub Pages answers gzip whatever the browser offers; lhci's server would answer brotli.
        extraHeaders: { "Accept-Encoding": "gzip" },
      },
    },
    assert: {
      aggregationMethod: "median-run",
      assertions: {
        ...Object.fromEntries(judged.map((id) => [`categories:${id}`, ["error", { minScore: 1 }]])),
        ...Object.fromEntries(scoredAudits.map((id) => [id, ["error", { minScore: 1 }]])),
        "total-byte-weight": ["error", { maxNumericValue: 250 * 1024 }], // HTML, CSS, JS, fonts, images
      },
    },
    upload: { target: "filesystem", outputDir: "lighthouse", reportFilenamePattern: "%%PATHNAME%%.%%EXTENSION%%" },
  },
};
