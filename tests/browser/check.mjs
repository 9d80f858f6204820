// Opens pages of perfbench's HTML report in headless Chromium and fails on
// anything a reader would notice: a console error, an uncaught exception, a
// broken image, a request that leaves file://, or a text that should show
// but does not.
//
//   node check.mjs [--expect-text TEXT]... FILE.html...
//
// Prints one JSON object per page on stdout; exits 1 if any page failed.
// Each object also holds what the page shows, as laid out (see `layout`):
// the summary's rows and columns, the notes, a group page's standings, the
// links to group pages, and the geometry of every chart, for the tests to
// check against the figures of the run.
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

// What a page shows, read from the rendered DOM. Chart coordinates are in
// each SVG's own units; text positions are the centres of the boxes the
// browser laid the text out in.
function readLayout() {
  const text = (el) => (el ? el.innerText.trim() : null);
  const visible = (el) => !!el && el.offsetWidth > 0 && el.offsetHeight > 0;
  const points = (list) => Array.from({ length: list.numberOfItems }, (_, i) => {
    const p = list.getItem(i);
    return [p.x, p.y];
  });
  // A row of a table whose first cell names a benchmark (under `key`),
  // maybe marked as from an earlier run.
  const rowOf = (row, key) => {
    const badge = row.cells[0].querySelector(".badge.stale");
    return {
      [key]: row.cells[0].querySelector("a, span").textContent,
      stale: row.classList.contains("stale"),
      stale_badge: visible(badge) ? badge.innerText.trim() : null,
      cells: [...row.cells].slice(1).map((c) => c.innerText.trim()),
    };
  };
  const table = document.getElementById("summary");
  const summary = table && {
    metrics: [...table.tHead.rows[0].cells].slice(1).map((th) => th.textContent.trim()),
    rows: [...table.tBodies[0].rows].map((row) => rowOf(row, "id")),
    width: table.getBoundingClientRect().width,
    body_width: document.body.clientWidth,
  };
  const figures = [...document.querySelectorAll("figure[data-chart]")].map((f) => {
    const svg = f.querySelector("svg");
    const section = f.closest("section");
    return {
      chart: f.dataset.chart,
      metric: f.dataset.metric,
      axis: f.dataset.axis || null,
      arg: f.dataset.arg ?? null,
      section: section ? section.id : null,
      circles: [...svg.querySelectorAll("circle")].map((c) => [c.cx.baseVal.value, c.cy.baseVal.value]),
      polylines: [...svg.querySelectorAll("polyline")].map((p) => points(p.points)),
      polygons: [...svg.querySelectorAll("polygon")].map((p) => points(p.points)),
      texts: [...svg.querySelectorAll("text")].map((t) => {
        const b = t.getBBox();
        return { text: t.textContent.trim(), x: b.x + b.width / 2, y: b.y + b.height / 2 };
      }),
      // A history chart's change points and its runs' tooltips.
      change_points: [...svg.querySelectorAll("g.change-point")].map((g) => ({
        run: Number(g.dataset.run),
        x: g.querySelector("line").x1.baseVal.value,
        label: g.querySelector("text").textContent.trim(),
        title: g.querySelector("title").textContent,
      })),
      tooltips: [...svg.querySelectorAll("circle.run")].map((c) => ({
        x: c.cx.baseVal.value,
        title: c.querySelector("title").textContent,
      })),
    };
  });
  // A group page's standings: a table per argument, a row per member.
  const standings = [...document.querySelectorAll("table.standing")].map((t) => {
    const section = t.closest("section");
    return {
      section: section ? section.id : null,
      arg: section ? section.dataset.arg ?? null : null,
      metrics: [...t.tHead.rows[0].cells].slice(1).map((th) => th.textContent.trim()),
      rows: [...t.tBodies[0].rows].map((row) => rowOf(row, "member")),
    };
  });
  // Links to group pages: the index's list, and those in rows and navs.
  const group_links = [...document.querySelectorAll("#groups a, a.group-link")].map((a) => ({
    text: a.textContent.trim(),
    href: a.getAttribute("href"),
    row: a.closest("tr") ? a.closest("tr").cells[0].querySelector("a, span").textContent : null,
    listed: !!a.closest("#groups"),
  }));
  const groups = [...document.querySelectorAll("section.group")].map((s) => ({
    id: s.id,
    title: s.querySelector("h3").firstChild.textContent.trim(),
    zero: text(s.querySelector(".zero-metrics")),
  }));
  // The index's "Changed in this run": a row per metric judged, in order.
  const changedNow = document.getElementById("changed-now-table");
  const run_changes = changedNow && [...changedNow.querySelectorAll("tr[class]")].map((row) => ({
    id: row.cells[0].textContent,
    metric: row.cells[1].textContent,
    verdict: row.cells[2].textContent,
  }));
  return {
    summary,
    run_changes,
    nothing_changed: text(document.getElementById("nothing-changed")),
    folded: text(document.getElementById("folded")),
    stale_note: text(document.getElementById("stale")),
    throughput: text(document.getElementById("throughput")),
    groups,
    figures,
    standings,
    group_links,
  };
}

// Clicks the summary's last sortable header; returns that column's sort
// keys from top to bottom.
async function sortByLastColumn(page) {
  const headers = await page.$$("#summary th[data-col]");
  const last = headers[headers.length - 1];
  const col = Number(await last.getAttribute("data-col"));
  await last.click();
  return page.evaluate((col) => [...document.querySelectorAll("#summary tbody tr")].map((row) => {
    const v = row.cells[col].getAttribute("data-v");
    return v === null ? null : Number(v);
  }), col);
}

// Clicks the summary's benchmark header (after another column's): returns
// the ids from top to bottom, which must be in the server's natural order.
async function sortById(page) {
  await page.click("#summary th[data-col=\"0\"]");
  return page.evaluate(() => [...document.querySelectorAll("#summary tbody tr")].map(
    (row) => row.cells[0].dataset.s));
}

// On a page `width` px wide, how each id of the index's tables is laid out:
// the lines it takes (the distinct tops of its parts) and the parts
// (between :: and /) that were broken across lines, which must be none.
async function idWrapping(page, width) {
  await page.setViewportSize({ width, height: 800 });
  return page.evaluate(() => [...document.querySelectorAll("td.id")].map((td) => {
    const segs = [...td.querySelectorAll(".seg")];
    const tops = new Set(segs.flatMap((s) => [...s.getClientRects()].map((r) => Math.round(r.top))));
    return {
      id: segs.map((s) => s.textContent).join(""),
      table: td.closest("table").id,
      lines: tops.size,
      broken_parts: segs.filter((s) => s.getClientRects().length > 1).map((s) => s.textContent),
    };
  }));
}

// On a page with a flame graph (`#profile`): the frame named `name` (its
// <title>'s first line), hovered, then clicked: the hover line it wrote,
// its width before and after the zoom, and how many frames the zoom hid;
// then the reset's widths. `null` where the page has no flame graph.
async function flameOf(page, name) {
  const has = await page.$("#profile svg.flame-graph");
  if (!has) return null;
  const frame = await page.evaluateHandle((name) => [...document.querySelectorAll("#profile svg.f")]
    .find((f) => f.querySelector("title").textContent.split("\n")[0] === name) || null, name);
  const found = await frame.evaluate((f) => !!f);
  const names = await page.evaluate(() => [...document.querySelectorAll("#profile svg.f title")]
    .map((t) => t.textContent.split("\n")[0]));
  if (!found) return { names, found: false };
  const width = () => frame.evaluate((f) => f.getBoundingClientRect().width);
  const graphWidth = await page.evaluate(() => document.querySelector("#profile svg.flame-graph").getBoundingClientRect().width);
  const before = await width();
  await frame.evaluate((f) => f.querySelector("rect, text").dispatchEvent(new MouseEvent("mouseover", { bubbles: true })));
  const hover = await page.evaluate(() => document.querySelector("#profile .flame-hover").textContent);
  await frame.evaluate((f) => f.querySelector("rect, text").dispatchEvent(new MouseEvent("click", { bubbles: true })));
  const zoomed = await width();
  const hidden = await page.evaluate(() => [...document.querySelectorAll("#profile svg.f")].filter((f) => f.style.display === "none").length);
  await page.click("#profile .flame-reset");
  const reset = await width();
  return { names, found: true, hover, graph_width: graphWidth, before, zoomed, hidden, reset };
}

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
  const layout = await page.evaluate(readLayout);
  // A sortable table: clicking a header must not throw and must keep the rows.
  const header = await page.$("th");
  if (header) {
    await header.click();
    const rowsAfter = await page.evaluate(() => document.querySelectorAll("tbody tr").length);
    if (rowsAfter !== report.rows) problems.push(`sorting changed the row count ${report.rows} -> ${rowsAfter}`);
  }
  // A flame graph's frame (named by FLAME_FRAME) hovered, zoomed, reset.
  const flame = await flameOf(page, process.env.FLAME_FRAME || "");
  for (const b of report.broken) problems.push(`broken image: ${b}`);
  for (const t of report.missing_text) problems.push(`text not shown: ${t}`);
  if (report.scripts_with_alert > 0) problems.push("a user-supplied script became a <script> element");
  const ok = problems.length === 0;
  failed ||= !ok;
  if (layout.summary) {
    layout.summary.sorted = await sortByLastColumn(page);
    layout.summary.ids_by_id = await sortById(page);
    layout.id_wrapping = await idWrapping(page, 360);
  }
  console.log(JSON.stringify({ file, ok, problems, flame, ...report, ...layout }));
  await page.close();
}
await browser.close();
process.exit(failed ? 1 : 0);
