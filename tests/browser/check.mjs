// Opens pages of perfbench's HTML report in headless Chromium and fails on
// anything a reader would notice: a console error, an uncaught exception, a
// broken image, a request that leaves file://, or a text that should show
// but does not.
//
//   node check.mjs [--expect-text TEXT]... FILE.html...
//
// Prints one JSON object per page on stdout; exits 1 if any page failed.
import { chromium } from "playwright-core";
import { pathToFileURL } from "node:url";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const expected = [];
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--expect-text") expected.push(args[++i]);
  else files.push(args[i]);
}
if (files.length === 0) {
  console.error("usage: node check.mjs [--expect-text TEXT]... FILE.html...");
  process.exit(2);
}

const browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "perfbench-chromium-")), {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

let failed = false;
for (const file of files) {
  const page = await browser.newPage();
  const problems = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console error: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`uncaught exception: ${e.message}`));
  page.on("request", (r) => {
    if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) problems.push(`network request: ${r.url()}`);
  });
  page.on("requestfailed", (r) => problems.push(`failed to load: ${r.url()}`));
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  const report = await page.evaluate((expected) => {
    const images = [...document.images].map((img) => ({
      src: img.getAttribute("src"),
      ok: img.complete && img.naturalWidth > 0,
    }));
    const text = document.body.innerText;
    return {
      title: document.title,
      images: images.length,
      broken: images.filter((i) => !i.ok).map((i) => i.src),
      svgs: document.querySelectorAll("svg").length,
      scripts_with_alert: [...document.scripts].filter((s) => s.textContent.includes("alert(")).length,
      missing_text: expected.filter((t) => !text.includes(t)),
      rows: document.querySelectorAll("tbody tr").length,
    };
  }, expected);
  // A sortable table: clicking a header must not throw and must keep the rows.
  const header = await page.$("th");
  if (header) {
    await header.click();
    const rowsAfter = await page.evaluate(() => document.querySelectorAll("tbody tr").length);
    if (rowsAfter !== report.rows) problems.push(`sorting changed the row count ${report.rows} -> ${rowsAfter}`);
  }
  for (const b of report.broken) problems.push(`broken image: ${b}`);
  for (const t of report.missing_text) problems.push(`text not shown: ${t}`);
  if (report.scripts_with_alert > 0) problems.push("a user-supplied script became a <script> element");
  const ok = problems.length === 0;
  failed ||= !ok;
  console.log(JSON.stringify({ file, ok, problems, ...report }));
  await page.close();
}
await browser.close();
process.exit(failed ? 1 : 0);
