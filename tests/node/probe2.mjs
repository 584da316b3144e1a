import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
const [n, ...pages] = process.argv.slice(2);
const bases = (process.env.BASES).split(",");
const chrome = await chromeLauncher.launch({chromePath: "/usr/bin/chromium", chromeFlags: ["--headless=new","--no-sandbox","--disable-gpu","--no-first-run","--disable-background-networking","--disable-component-update","--disable-sync"]});
const settings = { output: "json", logLevel: "error", disableFullPageScreenshot: true, onlyCategories: ["performance"] };
try {
  await lighthouse(bases[0] + pages[0], { port: chrome.port, ...settings });
  for (let i = 0; i < Number(n); i++) for (const page of pages) for (const base of bases) {
    const { lhr } = await lighthouse(base + page, { port: chrome.port, ...settings });
    const a = lhr.audits;
    const lt = a["long-tasks"]?.details?.items?.filter(x => x.url.includes("pydata-sphinx-theme.js")).map(x => Math.round(x.duration));
    console.log(base.split(":")[2].slice(0,4), page.padEnd(36), lhr.categories.performance.score, "TBT", Math.round(a["total-blocking-time"].numericValue), "LCP", Math.round(a["largest-contentful-paint"].numericValue), "SI", Math.round(a["speed-index"].numericValue), "pst-task", JSON.stringify(lt));
  }
} finally { await chrome.kill(); }
