// Icechunk in the viewer: the sample repository the official package
// (@earthmover/icechunk 2.2.2) wrote (web/demo/gen/icechunk) opens from the
// examples menu like any store; the Version panel lists the branches, the
// tags and the ancestry the package recorded when it wrote the repository
// (history.icechunk.json); choosing a version draws that version's values,
// which this test computes from the generator's functions
// (tests/icechunk/history.mjs), never from the engine's reading; a link
// with a version reopens it.
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { close, missingParts, outDir, repoRoot, screenOf, settledAddress, startViewer } from "./harness.mjs";
import { historyValue } from "../icechunk/history.mjs";

const missing = await missingParts();
const record = JSON.parse(await fs.readFile(path.join(repoRoot, "web", "demo", "gen", "icechunk", "history.icechunk.json"), "utf8"));
/** The values each snapshot holds ("survey", "spot", …), from the generator's record. */
const valuesOf = new Map(record.commits.map((c) => [c.id, c.values]));

// Gray from 10 to 70 covers every version's values (12.5 … 66).
const lo = 10;
const hi = 70;
const grayAt = (v) => {
  const g = Math.round(Math.min(1, Math.max(0, (v - lo) / (hi - lo))) * 255);
  return [g, g, g];
};
// The warm spot's centre, the cold band (rows 30-37) near and away from it, corners.
const points = [[24, 20], [33, 20], [33, 50], [5, 5], [45, 60], [0, 63]];

describe("Icechunk repositories in the viewer (Debian chromium)", { skip: missing.length ? `missing: ${missing.join(", ")}` : false }, () => {
  let s;
  // icechunk's own test repositories (Apache-2.0, tests/icechunk/upstream), served at /upstream/.
  const upstream = path.join(repoRoot, "tests", "icechunk", "upstream");
  before(async () => {
    s = await startViewer({ viewport: { width: 1280, height: 800 }, serveArgs: ["-mount", `/upstream/=${upstream}`] });
  });
  after(async () => {
    await s?.close();
  });

  /** The Version panel as shown: {label, refs: [{value, text}], history: [{id, message, time}]}. */
  function panel(page = s.page) {
    return page.evaluate(() => ({
      label: document.getElementById("version-label").textContent,
      hidden: document.getElementById("version-panel").hidden,
      selected: document.getElementById("version-ref").value,
      refs: [...document.querySelectorAll("#version-ref option")].map((o) => ({ value: o.value, text: o.textContent, group: o.parentElement.label ?? null })),
      history: [...document.querySelectorAll("#version-history button")].map((b) => ({
        id: b.dataset.snapshot,
        message: b.querySelector(".message").textContent,
        time: b.querySelector("time").getAttribute("datetime"),
        current: b.classList.contains("current"),
      })),
    }));
  }

  /** Checks the panel against the package's record for a version (key: "branch main", "tag v1") at snapshot id. */
  function checkPanel(p, key, id) {
    const want = record.ancestry[key];
    assert.ok(want, `the record has ${key}`);
    assert.deepEqual(
      p.history.map(({ id, message, time }) => ({ id, message, time })),
      want.map((a) => ({ id: a.id, message: a.message, time: new Date(a.time).toISOString() })),
      `the ancestry of ${key} as the official package wrote it`,
    );
    assert.deepEqual(p.history.filter((h) => h.current).map((h) => h.id), [id], "the snapshot shown is marked");
    const refs = p.refs.filter((r) => r.group);
    assert.deepEqual(
      refs.map((r) => [r.group, r.value, r.text.split(" · ")[1]]),
      [
        ...Object.entries(record.branches).map(([b, sid]) => ["Branches", `branch:${b}`, sid.slice(0, 8)]),
        ...Object.entries(record.tags).map(([t, sid]) => ["Tags", `tag:${t}`, sid.slice(0, 8)]),
      ],
      "the branches and tags as the official package wrote them",
    );
  }

  /** Checks the drawn pixels against the values of the snapshot id (the generator's functions); returns the expected colours. */
  async function checkPixels(id, what, page = s.page) {
    const values = valuesOf.get(id);
    assert.ok(values, `${what}: ${id} is one of the generator's commits`);
    const d = await page.evaluate(() => window.zarrDemo.display);
    assert.deepEqual([d.cmap, d.lo, d.hi], ["gray", lo, hi], `${what}: the colours the link asked for are kept`);
    const vs = await page.evaluate(() => window.zarrDemo.viewState);
    const scr = points.map(([i, j]) => screenOf(vs, i, j));
    assert.ok(scr.every((p) => p.inside), `${what}: the points are on the canvas`);
    const got = await s.pixels(scr.map((p) => [p.px, p.py]), ".view-canvas", page);
    const want = points.map(([i, j]) => grayAt(historyValue(values, i, j)));
    points.forEach(([i, j], k) => close(got[k], want[k], 1, `${what}: temperature[${i}, ${j}] = ${historyValue(values, i, j)} (${values})`));
    return want;
  }

  /** Whether two versions' expected colours differ visibly somewhere (else a switch that draws nothing new would pass). */
  const differ = (a, b) => a.some((c, k) => Math.abs(c[0] - b[k][0]) > 8);

  const versionIs = (prefix) => `document.getElementById("version-label")?.textContent.startsWith(${JSON.stringify(prefix)})`;

  test("the examples menu opens the repository at main; the picker lists what the official package wrote", async () => {
    const { page } = s;
    await s.goto("", "true");
    await s.rendered(
      () => page.selectOption("#examples", { label: "Sample · Icechunk repository: 3 commits, a branch, a tag" }),
      `window.zarrDemo.path === "temperature" && ${versionIs("branch main")}`,
    );
    const req = await page.evaluate(() => window.zarrDemo.requests);
    assert.equal(req.kind, "IcechunkStore", "read through IcechunkStore");
    const p = await panel();
    assert.equal(p.hidden, false);
    assert.equal(p.selected, "branch:main");
    assert.equal(p.label, `branch main · ${record.branches.main.slice(0, 8)}`);
    checkPanel(p, "branch main", record.branches.main);
    const names = await page.$$eval("#tree .row .name", (els) => els.map((e) => e.textContent));
    assert.deepEqual(names, ["/", "temperature"]);
    const addr = new URL(await settledAddress(page));
    assert.equal(addr.searchParams.get("branch"), "main", "the address names the version");
    await page.screenshot({ path: path.join(outDir, "icechunk-1-main.png") });
  });

  test("choosing a tag, an ancestor and a branch re-reads the picture at that version; a link reopens it", async () => {
    const { page } = s;
    await s.goto(`?url=data/history.icechunk&path=temperature&cmap=gray&clim=${lo},${hi}`, versionIs("branch main"));
    const atMain = await checkPixels(record.branches.main, "branch main");

    // A tag.
    await s.rendered(() => page.selectOption("#version-ref", "tag:v1"), versionIs("tag v1"));
    const atV1 = await checkPixels(record.tags.v1, "tag v1");
    assert.ok(differ(atMain, atV1), "main and v1 draw differently");
    checkPanel(await panel(), "tag v1", record.tags.v1);
    assert.equal(new URL(await settledAddress(page)).searchParams.get("tag"), "v1");

    // An ancestor, from the ancestry list: the first survey.
    const first = record.commits.find((c) => c.values === "survey").id;
    await s.rendered(() => page.click(`#version-history button[data-snapshot="${first}"]`), versionIs(`snapshot ${first.slice(0, 8)}`));
    const atFirst = await checkPixels(first, "the first survey");
    assert.ok(differ(atV1, atFirst), "v1 and its parent draw differently");
    let p = await panel();
    assert.deepEqual(p.history.map((h) => h.id), record.ancestry["branch main"].slice(2).map((a) => a.id), "the ancestry of the first survey");
    const snapLink = await settledAddress(page);
    assert.equal(new URL(snapLink).searchParams.get("snapshot"), first);

    // The other branch.
    await s.rendered(() => page.selectOption("#version-ref", "branch:experiment"), versionIs("branch experiment"));
    const atExp = await checkPixels(record.branches.experiment, "branch experiment");
    assert.ok(differ(atFirst, atExp) && differ(atV1, atExp), "the experiment's cold band is drawn");
    checkPanel(await panel(), "branch experiment", record.branches.experiment);
    await page.screenshot({ path: path.join(outDir, "icechunk-2-experiment.png") });

    // Links: the snapshot's, and the branch's as the address has it now.
    for (const [link, id, label] of [
      [snapLink, first, `snapshot ${first.slice(0, 8)}`],
      [await settledAddress(page), record.branches.experiment, "branch experiment"],
    ]) {
      const other = await s.newPage();
      try {
        await other.goto(link);
        await other.waitForFunction(`window.zarrDemo?.status === "rendered" && window.zarrDemo.renders > 0 && ${versionIs(label)}`, null, { timeout: 60_000 });
        await checkPixels(id, `the link ${link}`, other);
        assert.equal(await other.evaluate(() => window.zarrDemo.path), "temperature");
        p = await panel(other);
        assert.deepEqual(p.history.filter((h) => h.current).map((h) => h.id), [id]);
      } finally {
        await other.close();
      }
    }
    assert.deepEqual(s.errors, []);
  });

  test("the repository's first, empty snapshot says there is nothing at that version; a branch brings the picture back", async () => {
    const { page } = s;
    await s.goto(`?url=data/history.icechunk&path=temperature&cmap=gray&clim=${lo},${hi}`, versionIs("branch main"));
    const init = record.ancestry["branch main"].at(-1);
    assert.equal(init.parent, null);
    await page.click(`#version-history button[data-snapshot="${init.id}"]`);
    await page.waitForFunction(`window.zarrDemo.lastError?.title === "Nothing at this version" && ${versionIs(`snapshot ${init.id.slice(0, 8)}`)}`, null, { timeout: 60_000 });
    assert.equal(await page.isHidden("#loading"), true, "the loading note is gone");
    assert.match(await page.textContent("#banner-detail"), new RegExp(init.id));
    assert.equal(new URL(await settledAddress(page)).searchParams.get("snapshot"), init.id);
    await s.rendered(() => page.selectOption("#version-ref", "branch:main"), versionIs("branch main"));
    assert.equal(await page.evaluate(() => window.zarrDemo.path), "temperature");
    assert.equal(await page.isHidden("#banner"), true, "the banner is cleared");
  });

  test("a spec-1 repository icechunk 1.x wrote opens over HTTP; its refs cannot be listed there, a link names a tag", async () => {
    const { page } = s;
    const refOf = async (name) => JSON.parse(await fs.readFile(path.join(upstream, "test-repo-v1", "refs", name, "ref.json"), "utf8")).snapshot;
    const main = await refOf("branch.main");
    await page.goto(`${s.server.url}?url=/upstream/test-repo-v1/`);
    await page.waitForFunction(versionIs("branch main"), null, { timeout: 60_000 });
    let p = await panel();
    assert.equal(p.label, `branch main · ${main.slice(0, 8)}`, "main as refs/branch.main/ref.json names it");
    assert.equal(p.history[0].id, main);
    assert.ok(p.history.at(-1).message === "Repository initialized", JSON.stringify(p.history));
    assert.deepEqual(p.refs.map((r) => r.value), ["branch:main"], "only the version shown: plain HTTP lists no refs/");
    assert.equal(await page.isHidden("#version-note"), false, "a note says how to open another version");
    // A tag whose name needs escaping in a link.
    const tag = await refOf("tag.it works!");
    await page.goto(`${s.server.url}?url=/upstream/test-repo-v1/&tag=${encodeURIComponent("it works!")}`);
    await page.waitForFunction(versionIs("tag it works!"), null, { timeout: 60_000 });
    p = await panel();
    assert.equal(p.label, `tag it works! · ${tag.slice(0, 8)}`, "the tag as refs/tag.it works!/ref.json names it");
    assert.equal(p.selected, "tag:it works!");
    assert.equal(new URL(await settledAddress(page)).searchParams.get("tag"), "it works!", "the address keeps the tag");
  });

  test("an unknown branch in a link is a clear error naming the near one", async () => {
    const { page } = s;
    await page.goto(`${s.server.url}?url=data/history.icechunk&branch=experimnt&path=temperature`);
    await page.waitForFunction(() => window.zarrDemo?.lastError, null, { timeout: 60_000 });
    const text = await page.textContent("#banner");
    assert.match(text, /experimnt/, text);
    assert.match(text, /experiment/, `suggests the near name: ${text}`);
  });
});
