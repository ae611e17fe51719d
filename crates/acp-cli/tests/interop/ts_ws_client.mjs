// A small ACP client written with the official TypeScript SDK, connecting over the SDK's
// WebSocket transport (ws package) or its Streamable HTTP transport (http:// URLs), for the interop tests of `acp agent --listen`: it opens a
// session, sends one prompt, and with --reconnect opens a second connection that loads the
// session (v1), then prints what it received as one JSON object on standard output.
//
//   node ts_ws_client.mjs URL [--protocol 1|2] [--no-notices] [--reconnect] --prompt TEXT
//
// The SDK is found in $ACP_SDK_DIR, the `ws` package in $ACP_NODE_MODULES.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const argv = process.argv.slice(2);
const url = argv[0];
const protocol = argv.includes("--protocol") ? Number(argv[argv.indexOf("--protocol") + 1]) : 1;
const notices = !argv.includes("--no-notices");
const reconnect = argv.includes("--reconnect");
const promptText = argv[argv.indexOf("--prompt") + 1];
const sdk = (path) => import(pathToFileURL(join(process.env.ACP_SDK_DIR, path)).href);
const acp = await sdk(protocol === 2 ? "dist/v2/unstable/acp.js" : "dist/v1/unstable/acp.js");
const { createWebSocketStream } = await sdk("dist/transports/ws-stream.js");
const { createHttpStream } = await sdk("dist/transports/http-stream.js");
const { WebSocket } = await import(pathToFileURL(join(process.env.ACP_NODE_MODULES, "ws/wrapper.mjs")).href);
// ws:// and wss:// over WebSocket, http:// and https:// over Streamable HTTP.
const open = () => url.startsWith("http") ? createHttpStream(url) : createWebSocketStream(url, { WebSocket });

const seen = { protocolVersion: null, agent: null, updates: [], stopReason: null, loadSession: null, replayed: [] };
let sink = seen.updates;
let idle;
const turnEnded = new Promise((resolve) => { idle = resolve; });

const app = acp.client({ name: "ts-ws-client" })
  .onNotification("session/update", ({ params }) => {
    sink.push(params.update);
    if (params.update.sessionUpdate === "state_update" && params.update.state === "idle") {
      idle(params.update.stopReason);
    }
  })
  .onRequest("session/request_permission", () => ({ outcome: { outcome: "cancelled" } }));

const initialize = (agent) => protocol === 2
  ? agent.request("initialize", { protocolVersion: 2, info: { name: "ts-ws-client", version: "1.0.0" }, capabilities: {} })
  : agent.request("initialize", {
      protocolVersion: 1,
      clientInfo: { name: "ts-ws-client", version: "1.0.0" },
      clientCapabilities: notices ? { session: { notices: {} } } : {},
    });

let sessionId;
try {
  await app.connectWith(open(), async (agent) => {
    const init = await initialize(agent);
    seen.protocolVersion = init.protocolVersion;
    seen.agent = (protocol === 2 ? init.info : init.agentInfo)?.name ?? null;
    const session = await agent.request("session/new", protocol === 2 ? { cwd: process.cwd() } : { cwd: process.cwd(), mcpServers: [] });
    sessionId = session.sessionId;
    const prompt = [{ type: "text", text: promptText }];
    if (protocol === 2) {
      await agent.request("session/prompt", { sessionId, prompt });
      seen.stopReason = await turnEnded;
    } else {
      const response = await agent.request("session/prompt", { sessionId, prompt });
      seen.stopReason = response.stopReason;
    }
  });
  if (reconnect) {
    sink = seen.replayed;
    await app.connectWith(open(), async (agent) => {
      const init = await initialize(agent);
      seen.loadSession = init.agentCapabilities?.loadSession ?? null;
      await agent.request("session/load", { sessionId, cwd: process.cwd(), mcpServers: [] });
    });
  }
} catch (error) {
  seen.error = String(error?.message ?? error);
}
process.stdout.write(JSON.stringify(seen) + "\n");
process.exit(0);
