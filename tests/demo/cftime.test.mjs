// The viewer's CF time coordinates (web/demo/js/cftime.js) against cftime,
// Unidata's library (tests/demo/cftime_dates.py): every calendar CF names,
// units from days to seconds (months in the 360_day calendar), reference
// dates with times and zones, dates around the Gregorian reform and
// before year 1.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { formatTime, parseTimeUnits } from "../../web/demo/js/cftime.js";
import { here, python, required } from "./harness.mjs";

const calendars = ["standard", "gregorian", "proleptic_gregorian", "julian", "noleap", "365_day", "all_leap", "366_day", "360_day"];
const units = [
  "days since 2000-01-01",
  "hours since 1990-01-01 06:00:00",
  "days since 1582-10-01",
  "seconds since 1970-01-01T00:00:00Z",
  "minutes since 1850-01-01 00:00",
  "days since 0001-01-01",
  "months since 2000-01-01",
  "years since 1900-1-1",
  "days since 1600-02-28",
  "hours since 2001-03-01 12:00:00 -6:00",
];
const values = [0, 1, 15.5, 59, 60, 365, 366, 1000.25, 36524, 146097, -10, 731, 4.75];

test("CF time values read as cftime reads them, in every CF calendar", (t) => {
  const cases = [];
  for (const c of calendars) for (const u of units) for (const v of values) cases.push([u.startsWith("seconds") ? v * 86400 * 37 : v, u, c]);
  let want;
  try {
    want = JSON.parse(execFileSync(python, [path.join(here, "cftime_dates.py")], { input: JSON.stringify(cases), encoding: "utf8", stdio: ["pipe", "pipe", "ignore"] }));
  } catch (e) {
    if (required) throw e;
    return t.skip(`cftime is not available: ${String(e).split("\n")[0]}`);
  }
  const got = cases.map(([v, u, c]) => {
    const tu = parseTimeUnits(u, c);
    return tu ? formatTime(v, tu) : null;
  });
  const wrong = cases.map((c, i) => [c, got[i], want[i]]).filter(([, g, w]) => g !== w);
  assert.deepEqual(wrong, [], `${wrong.length} of ${cases.length} differ from cftime`);
  assert.ok(want.filter(Boolean).length > cases.length * 0.8, "most cases are dates");
});

test("not CF time: null", () => {
  for (const u of ["K", "degrees_north", "days", "since 2000-01-01", "days since yesterday", "days since 2000-13-01"]) assert.equal(parseTimeUnits(u), null, u);
  assert.equal(parseTimeUnits("days since 2000-01-01", "martian"), null);
});
