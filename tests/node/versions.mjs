// Shared by the Node and browser suites' version tests: a shard in two
// versions, a route that serves values with ETags (honouring Range,
// If-Match and If-None-Match), and the check that a read is of one version.

/** Version A's value at flat index i (64 × 64 int32). */
export const valueA = (i) => i;
/** Version B's: the first row of 8×8 inner chunks is the fill value (not stored), the rest at other offsets. */
export const valueB = (i) => (i < 8 * 64 ? 0 : 1_000_000 + ((Math.imul(i, 2654435761 | 0) >>> 0) % 1048576));

/** The window every read takes, and its shape. */
export const window = "3:45, 10:50";

/**
 * Which version a read of `window` is: "A", "B", or null for a mix (or
 * garbage). data is the Int32Array the read returned.
 */
export function versionOf(data) {
  let version = null;
  let k = 0;
  for (let i = 3; i < 45; i++) {
    for (let j = 10; j < 50; j++) {
      const v = data[k++];
      const flat = i * 64 + j;
      const is = v === valueA(flat) ? "A" : v === valueB(flat) ? "B" : null;
      if (is === null) return null;
      if (version === null) version = is;
      else if (version !== is) return null;
    }
  }
  return version;
}

/**
 * Reads `window` n times: how many reads were of one version (good),
 * CONFLICT errors, other typed errors and anything else (wrong: a mix, or
 * an untyped error). between runs before each read; counted is how many
 * reads moved counter() (say, the reads a path placed itself).
 */
export async function readMany(zarr, arr, n, { between, counter } = {}) {
  const out = { good: 0, conflicts: 0, typed: 0, wrong: 0, counted: 0 };
  for (let i = 0; i < n; i++) {
    if (between) await between();
    const before = counter?.();
    try {
      const { data } = await arr.get(window);
      if (versionOf(data)) out.good++;
      else out.wrong++;
    } catch (e) {
      if (e.code === "CONFLICT") out.conflicts++;
      else if (e instanceof zarr.ZarrError) out.typed++;
      else out.wrong++;
    }
    if (counter && counter() > before) out.counted++;
  }
  return out;
}

/**
 * Writes the sharded array (64×64 int32, 8×8 inner chunks, one shard) in
 * both versions with the package; returns its zarr.json and both shards.
 */
export async function twoShardVersions(zarr) {
  const store = new zarr.MemoryStore();
  const arr = await zarr.create(store, { path: "a", shape: [64, 64], chunks: [8, 8], shardShape: [64, 64], dtype: "int32", zarrFormat: 3 });
  const shard = async (value) => {
    await arr.set(null, Int32Array.from({ length: 64 * 64 }, (_, i) => value(i)));
    return new Uint8Array(store.get("/a/c/0/0"));
  };
  const a = await shard(valueA);
  const b = await shard(valueB);
  return { meta: store.get("/a/zarr.json"), a, b };
}

/**
 * Answers req with body (an ETag's version of a value): 412 when If-Match
 * names another ETag, 304 when If-None-Match names this one, 206 for one
 * range. Counts into stats ({requests, notModified, preconditionFailed}).
 */
export function serveValue(req, res, body, etag, stats) {
  if (stats) stats.requests = (stats.requests ?? 0) + 1;
  const headers = {
    ETag: etag,
    "Accept-Ranges": "bytes",
    "Cache-Control": "no-cache",
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "ETag, Content-Range",
  };
  const ifMatch = req.headers["if-match"];
  if (ifMatch !== undefined && ifMatch !== etag && ifMatch !== "*") {
    if (stats) stats.preconditionFailed = (stats.preconditionFailed ?? 0) + 1;
    res.writeHead(412, headers);
    return res.end();
  }
  const ifNoneMatch = req.headers["if-none-match"];
  if (ifNoneMatch !== undefined && ifNoneMatch.split(/\s*,\s*/).includes(etag)) {
    if (stats) stats.notModified = (stats.notModified ?? 0) + 1;
    res.writeHead(304, headers);
    return res.end();
  }
  const range = req.headers.range;
  if (range) {
    const m = /^bytes=(\d*)-(\d*)$/.exec(range);
    const size = body.length;
    let start;
    let end;
    if (m && m[1] === "" && m[2] !== "") {
      start = Math.max(0, size - Number(m[2]));
      end = size - 1;
    } else if (m && m[1] !== "") {
      start = Number(m[1]);
      end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
    }
    if (start === undefined || start >= size || start > end) {
      res.writeHead(416, { ...headers, "Content-Range": `bytes */${size}` });
      return res.end();
    }
    res.writeHead(206, { ...headers, "Content-Range": `bytes ${start}-${end}/${size}`, "Content-Length": end - start + 1 });
    return res.end(Buffer.from(body.subarray(start, end + 1)));
  }
  res.writeHead(200, { ...headers, "Content-Length": body.length });
  res.end(Buffer.from(body));
}

/**
 * Routes (for helpers.startServer) under prefix serving the array with its
 * shard switching between versions A and B at random between requests.
 */
export function alternatingRoutes(prefix, { meta, a, b }, stats = {}) {
  let seed = 12345;
  const coin = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 16) & 1;
  };
  return {
    [`${prefix}/a/zarr.json`]: (req, res) => serveValue(req, res, meta, '"meta"', null),
    [`${prefix}/a/c/0/0`]: (req, res) => (coin() ? serveValue(req, res, b, '"B"', stats) : serveValue(req, res, a, '"A"', stats)),
  };
}
