// A small ACP client written with the official TypeScript SDK, connecting over the SDK's
// WebSocket transport (ws package) or its Streamable HTTP transport (http:// URLs), for the
// interop tests of `acp agent --listen`: it opens a session and sends each prompt in turn,
// answering the agent's permission requests (the first "allow" option with --allow, else the
// first "reject" one). With --reconnect it then closes the connection, opens a new one and
// continues the session (v1 `session/load`, v2 `session/resume` replaying from the start).
// It prints what it received as one JSON object on standard output (the same shape as
// py_remote_client.py).
//
//   node ts_ws_client.mjs URL [--protocol 1|2] [--no-notices] [--allow] [--reconnect]
//                         --prompt TEXT [--prompt TEXT ...]
//
// The SDK is found in $ACP_SDK_DIR, the `ws` package in $ACP_NODE_MODULES.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const argv = process.argv.slice(2);
const url = argv[0];
const protocol = argv.includes("--protocol") ? Number(argv[argv.indexOf("--protocol") + 1]) : 1;
const notices = !argv.includes("--no-notices");
const reconnect = argv.includes("--reconnect");
const allow = argv.includes("--allow");
const prompts = argv.flatMap((flag, i) => (flag === "--prompt" ? [argv[i + 1]] : []));
const sdk = (path) => import(pathToFileURL(join(process.env.ACP_SDK_DIR, path)).href);
const acp = await sdk(protocol === 2 ? "dist/v2/unstable/acp.js" : "dist/v1/unstable/acp.js");
const { createWebSocketStream } = await sdk("dist/transports/ws-stream.js");
const { createHttpStream } = await sdk("dist/transports/http-stream.js");
const { WebSocket } = await import(pathToFileURL(join(process.env.ACP_NODE_MODULES, "ws/wrapper.mjs")).href);
// ws:// and wss:// over WebSocket, http:// and https:// over Streamable HTTP.
const open = () => url.startsWith("http") ? createHttpStream(url) : createWebSocketStream(url, { WebSocket });

const seen = { protocolVersion: null, agent: null, sessionId: null, updates: [], stopReasons: [], permissions: [],
               loadSession: null, replayed: [] };
let sink = seen.updates;
let idle = () => {};
const expectIdle = () => new Promise((resolve) => { idle = resolve; });

function answerPermission({ params }) {
  const options = params.options ?? [];
  const chosen = allow
    ? options.find((o) => o.kind === "allow_once")
    : options.find((o) => o.kind?.startsWith("reject"));
  seen.permissions.push({ options: options.map((o) => o.optionId), answered: allow && chosen ? chosen.optionId : "rejected" });
  return chosen ? { outcome: { outcome: "selected", optionId: chosen.optionId } } : { outcome: { outcome: "cancelled" } };
}

const app = acp.client({ name: "ts-ws-client" })
  .onNotification("session/update", ({ params }) => {
    sink.push(params.update);
    if (params.update.sessionUpdate === "state_update" && params.update.state === "idle") {
      idle(params.update.stopReason);
    }
  })
  .onRequest("session/request_permission", answerPermission);

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
    seen.sessionId = sessionId;
    for (const text of prompts) {
      const prompt = [{ type: "text", text }];
      if (protocol === 2) {
        const ended = expectIdle();
        await agent.request("session/prompt", { sessionId, prompt });
        seen.stopReasons.push(await ended);
      } else {
        const response = await agent.request("session/prompt", { sessionId, prompt });
        seen.stopReasons.push(response.stopReason);
      }
    }
  });
  if (reconnect) {
    sink = seen.replayed;
    await app.connectWith(open(), async (agent) => {
      const init = await initialize(agent);
      if (protocol === 2) {
        // v2 has no capability for resuming: every v2 agent offers `session/resume`.
        await agent.request("session/resume", { sessionId, cwd: process.cwd(), replayFrom: { type: "start" } });
      } else {
        seen.loadSession = init.agentCapabilities?.loadSession ?? null;
        await agent.request("session/load", { sessionId, cwd: process.cwd(), mcpServers: [] });
      }
    });
  }
} catch (error) {
  seen.error = String(error?.message ?? error);
}
process.stdout.write(JSON.stringify(seen) + "\n");
process.exit(0);
