// An HTTP server on 127.0.0.1 for virtual chunks' target file
// (virtual/target.bin, at /virtual/target.bin) with Range requests, an
// ETag and a Last-Modified date the tests can change (to make the file
// look replaced): the repositories' references record ETag "target-v1"
// and a modification time of 2024-01-02T00:00:00Z. It neither honours nor
// needs conditional headers: readers must check the answer's validators.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const targetPath = path.join(here, "virtual", "target.bin");
export const targetPrefix = "https://zarr-wasm-test.example/virtual/";

/** Starts the server; resolves to {url (ending in /virtual/), state, requests, close()}. */
export function serveTarget() {
  const data = fs.readFileSync(targetPath);
  const state = { etag: '"target-v1"', lastModified: "Mon, 01 Jan 2024 00:00:00 GMT" };
  const srv = { requests: 0, state };
  const server = http.createServer((req, res) => {
    srv.requests++;
    if (new URL(req.url, "http://x").pathname !== "/virtual/target.bin") {
      res.writeHead(404).end();
      return;
    }
    const headers = { "Accept-Ranges": "bytes", "Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": "ETag, Content-Range" };
    if (state.etag) headers.ETag = state.etag;
    if (state.lastModified) headers["Last-Modified"] = state.lastModified;
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    if (!m) {
      res.writeHead(200, { ...headers, "Content-Length": data.length }).end(data);
      return;
    }
    const start = Number(m[1]);
    const end = m[2] === "" ? data.length - 1 : Math.min(Number(m[2]), data.length - 1);
    if (start >= data.length || end < start) {
      res.writeHead(416, { ...headers, "Content-Range": `bytes */${data.length}` }).end();
      return;
    }
    res.writeHead(206, { ...headers, "Content-Range": `bytes ${start}-${end}/${data.length}`, "Content-Length": end - start + 1 });
    res.end(data.subarray(start, end + 1));
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      srv.url = `http://127.0.0.1:${server.address().port}/virtual/`;
      srv.close = () => new Promise((r) => server.close(r));
      resolve(srv);
    });
  });
}
