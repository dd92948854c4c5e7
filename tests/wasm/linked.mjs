// What a Go-built .wasm links, from its "name" section (build it without
// -ldflags=-s, which strips that section).
//
//   node tests/wasm/linked.mjs FILE.wasm               the code size per package
//   node tests/wasm/linked.mjs FILE.wasm pkg:fmt func:time.Time.Format ...
//       fails (exit 1) listing what is linked of each package named "pkg:"
//       (but its initialisation, P.init*, which importing it keeps) and each
//       function named "func:" (a full name, or a prefix ending in "*");
//       prints nothing else when none is. "pkg:PATH:F1:F2" also leaves
//       out the package's functions F1, F2 (what its initialisation calls).
import { readFileSync } from "node:fs";

const [file, ...forbidden] = process.argv.slice(2);
if (!file) {
  console.error("usage: node tests/wasm/linked.mjs FILE.wasm [pkg:PATH | func:NAME]...");
  process.exit(2);
}
const b = readFileSync(file);

function leb(i) {
  let r = 0, s = 0, x;
  do {
    x = b[i++];
    r += (x & 0x7f) * 2 ** s;
    s += 7;
  } while (x & 0x80);
  return [r, i];
}

let i = 8, imported = 0, n;
const sizes = [], names = new Map();
while (i < b.length) {
  const id = b[i++];
  [n, i] = leb(i);
  const end = i + n;
  if (id === 2) { // imports: function imports come first in the index space
    let [count, j] = leb(i);
    for (let k = 0; k < count; k++) {
      let l;
      [l, j] = leb(j); j += l;
      [l, j] = leb(j); j += l;
      const kind = b[j++];
      if (kind === 0) { [, j] = leb(j); imported++; }
      else if (kind === 1) { j++; const f = b[j++]; [, j] = leb(j); if (f & 1) [, j] = leb(j); }
      else if (kind === 2) { const f = b[j++]; [, j] = leb(j); if (f & 1) [, j] = leb(j); }
      else if (kind === 3) j += 2;
    }
  } else if (id === 10) { // code
    let [count, j] = leb(i);
    for (let k = 0; k < count; k++) {
      let l;
      [l, j] = leb(j);
      sizes.push(l);
      j += l;
    }
  } else if (id === 0) {
    let [l, j] = leb(i);
    const name = b.toString("utf8", j, j + l);
    j += l;
    if (name === "name") {
      while (j < end) {
        const sub = b[j++];
        let sl;
        [sl, j] = leb(j);
        const subEnd = j + sl;
        if (sub === 1) {
          let [count, k] = leb(j);
          for (let m = 0; m < count; m++) {
            let idx, nl;
            [idx, k] = leb(k);
            [nl, k] = leb(k);
            names.set(idx, b.toString("utf8", k, k + nl));
            k += nl;
          }
        }
        j = subEnd;
      }
    }
  }
  i = end;
}
if (names.size === 0) {
  console.error(`${file}: no name section (built with -ldflags=-s?)`);
  process.exit(2);
}

// Go writes a function's package path with "/", "-" and "." of the path's
// elements as "_" except the last element's dots ("github.com_a_b.F").
const mangle = (p) => {
  const slash = p.lastIndexOf("/");
  return (p.slice(0, slash + 1).replace(/[/-]/g, "_") + p.slice(slash + 1).replace(/-/g, "_"));
};
const pkgOf = (name) => {
  const start = name.startsWith("github.com_") || name.startsWith("golang.org_") ? name.indexOf("_") : 0;
  const dot = name.indexOf(".", start);
  return dot > 0 ? name.slice(0, dot) : name;
};

const funcs = sizes.map((size, k) => ({ name: names.get(imported + k) ?? `?${k}`, size }));
if (forbidden.length === 0) {
  const per = new Map();
  let total = 0;
  for (const f of funcs) {
    per.set(pkgOf(f.name), (per.get(pkgOf(f.name)) ?? 0) + f.size);
    total += f.size;
  }
  console.log(`${total} bytes of code in ${funcs.length} functions`);
  for (const [p, s] of [...per].sort((x, y) => y[1] - x[1])) console.log(String(s).padStart(9), p);
  process.exit(0);
}
let bad = 0;
for (const want of forbidden) {
  let match;
  if (want.startsWith("pkg:")) {
    const [path, ...except] = want.slice(4).split(":");
    const p = mangle(path);
    const init = (n) => n === `${p}.init` || n.startsWith(`${p}.init.`) || n.startsWith(`${p}.map.init.`) ||
      except.some((f) => n === `${p}.${f}`);
    match = (f) => pkgOf(f.name) === p && !init(f.name);
  } else if (want.startsWith("func:")) {
    const fn = want.slice(5);
    const m = mangle(fn.slice(0, fn.lastIndexOf("/") + 1)) + fn.slice(fn.lastIndexOf("/") + 1);
    match = m.endsWith("*") ? (f) => f.name.startsWith(m.slice(0, -1)) : (f) => f.name === m;
  } else {
    console.error(`${want}: not pkg:PATH or func:NAME`);
    process.exit(2);
  }
  const hits = funcs.filter(match);
  if (hits.length > 0) {
    bad++;
    const total = hits.reduce((s, f) => s + f.size, 0);
    console.error(`${file}: ${want} is linked: ${hits.length} functions, ${total} bytes of code, e.g. ${hits.slice(0, 5).map((f) => f.name).join(", ")}`);
  }
}
process.exit(bad ? 1 : 0);
