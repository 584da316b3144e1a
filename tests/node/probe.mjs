import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import fs from "fs";
const [page, n] = process.argv.slice(2);
const chrome = await chromeLauncher.launch({chromePath: "/usr/bin/chromium", chromeFlags: ["--headless=new","--no-sandbox","--disable-gpu","--no-first-run","--disable-background-networking","--disable-component-update","--disable-sync"]});
const settings = { output: "json", logLevel: "error", disableFullPageScreenshot: true, onlyCategories: ["performance"] };
try {
  await lighthouse((process.env.BASE || "http://127.0.0.1:8765/autograd-measured/") + page, { port: chrome.port, ...settings });
  for (let i = 0; i < Number(n); i++) {
    const { lhr, artifacts } = await lighthouse((process.env.BASE || "http://127.0.0.1:8765/autograd-measured/") + page, { port: chrome.port, ...settings });
    const a = lhr.audits;
    console.log(page, lhr.categories.performance.score, "TBT", a["total-blocking-time"].numericValue, "FCP", a["first-contentful-paint"].numericValue, "LCP", a["largest-contentful-paint"].numericValue, "SI", a["speed-index"].numericValue);
    console.log(" long tasks:", JSON.stringify(a["long-tasks"]?.details?.items?.map(x => [x.url.split("/").pop(), Math.round(x.startTime), Math.round(x.duration)])));
    console.log(" breakdown:", JSON.stringify(a["mainthread-work-breakdown"]?.details?.items?.map(x => [x.group, Math.round(x.duration)])));
    console.log(" bootup:", JSON.stringify(a["bootup-time"]?.details?.items?.map(x => [x.url.split("/").pop(), Math.round(x.total), Math.round(x.scripting), Math.round(x.scriptParseCompile)])));
    fs.writeFileSync(`/tmp/lh/lhr-${i}.json`, JSON.stringify(lhr));
  }
} finally { await chrome.kill(); }
