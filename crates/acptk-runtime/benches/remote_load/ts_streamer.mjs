// The load benchmark's agent written with the official TypeScript SDK and served by the SDK's
// own server transport over WebSocket (ws package): each prompt streams N notices (v1, for a
// client that advertised `session.notices`), each with its send time in nanoseconds since the
// Unix epoch as its description, then ends the turn. Started and ended by
// benches/remote_load.rs.
//
//   node ts_streamer.mjs N [INTERVAL_US]
//
// With INTERVAL_US, notice i of a turn is due INTERVAL_US x i after the turn started (open
// loop): the server waits until then, and the notice carries the time it was due, so that a
// server that falls behind shows it in the latency.
// Prints `listening on ws://127.0.0.1:PORT/acp` on standard output once it listens. The SDK is
// found in $ACP_SDK_DIR, the `ws` package in $ACP_NODE_MODULES.
import http from "node:http";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const updates = Number(process.argv[2] ?? 1000);
const intervalUs = Number(process.argv[3] ?? 0);
const sdk = (path) => import(pathToFileURL(join(process.env.ACP_SDK_DIR, path)).href);
const acp = await sdk("dist/v1/unstable/acp.js");
const { AcpServer } = await sdk("dist/transports/server.js");
const { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } = await sdk("dist/transports/node-adapter.js");
const { WebSocketServer } = await import(pathToFileURL(join(process.env.ACP_NODE_MODULES, "ws/wrapper.mjs")).href);

// Nanoseconds since the Unix epoch (microsecond resolution), as a decimal string.
const epochNs = () => (BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000)) * 1000n).toString();
let nextSession = 1;

function makeAgent() {
  return acp.agent({ name: "ts-streamer" })
    .onRequest("initialize", () => ({ protocolVersion: 1, agentInfo: { name: "ts-streamer", version: "1.0.0" },
                                      agentCapabilities: {} }))
    .onRequest("session/new", () => ({ sessionId: `ts_${nextSession++}` }))
    .onRequest("session/prompt", async ({ params, client }) => {
      const startUs = (performance.timeOrigin + performance.now()) * 1000;
      for (let i = 0; i < updates; i++) {
        let sent = epochNs();
        if (intervalUs > 0) {
          const dueUs = startUs + i * intervalUs;
          const waitMs = (dueUs - (performance.timeOrigin + performance.now()) * 1000) / 1000;
          if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
          sent = (BigInt(Math.round(dueUs)) * 1000n).toString();
        }
        await client.notify("session/update", { sessionId: params.sessionId, update: {
          sessionUpdate: "notice", severity: "info", title: `update ${i}`, description: sent } });
      }
      return { stopReason: "end_turn" };
    })
    .onNotification("session/cancel", () => {});
}

const server = new AcpServer({ createAgent: makeAgent });
const httpServer = http.createServer(createNodeHttpHandler(server));
const upgrade = createNodeWebSocketUpgradeHandler(server, new WebSocketServer({ noServer: true }));
httpServer.on("upgrade", (req, socket, head) => upgrade(req, socket, head));
httpServer.listen(0, "127.0.0.1", 1024, () => {
  process.stdout.write(`listening on ws://127.0.0.1:${httpServer.address().port}/acp\n`);
});
const stop = async () => { await server.close(); httpServer.close(); process.exit(0); };
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
