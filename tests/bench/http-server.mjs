// The HTTP server of the bench's "over HTTP" section, in a process of its
// own (tests/bench/sections.mjs forks it): a real server is another
// process, and one inside the bench's process would share its event loop
// with the library being measured — its 20 ms timers, file reads and
// answers would wait while a chunk decodes, and its work would count in
// the library's time.
//
//   node tests/bench/http-server.mjs ROOT DELAY_MS [SLOTS]   (with an IPC channel)
//
// SLOTS: requests answered at once, the others queued (as a client's
// connections would hold them). Sends {url} when listening; answers
// "requests" with {requests, connections, bytes} (so far).
import { startServer } from "../node/helpers.mjs";

const [root, delay, slots] = process.argv.slice(2);
// Idle connections stay open a minute (nginx keeps them 75 s): with Node's
// 5 s a client may send a request on a connection the server is closing.
const server = await startServer(root, { delayMs: Number(delay), keepAliveTimeout: 60_000, slots: slots ? Number(slots) : undefined });
process.on("message", async (m) => {
  if (m === "requests") process.send({ requests: server.stats.requests, connections: server.stats.connections, bytes: server.stats.bytes });
  if (m === "close") {
    await server.close();
    process.exit(0);
  }
});
process.on("disconnect", () => process.exit(0));
process.send({ url: server.url });
