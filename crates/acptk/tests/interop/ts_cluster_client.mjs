// A client written with the official TypeScript SDK for the cluster tests: it talks to two
// `acp agent --listen` instances through HAProxy, over the SDK's WebSocket transport (ws://)
// or its Streamable HTTP transport (http://). It prints one JSON object per line as things
// happen, so the test can act in between (kill the instance running the turn):
//
//   {"event":"session","sessionId":...}       the session it created
//   {"event":"update","update":...}           an update of the first connection
//   {"event":"disconnected","error":...}      the first connection ended under the turn
//   {"event":"replayed","update":...}         an update of the reopened session
//   {"event":"busy","code":...,"message":...} a prompt refused (retried every 200 ms)
//   {"event":"prompted","stopReason":...}     the prompt after the failover ended
//   {"event":"error","error":...}             anything else that failed
//
//   node ts_cluster_client.mjs URL [--protocol 1|2] --prompt LONG --quick SHORT
//
// After the first connection ended, it connects again through the same URL, reopens the
// session (v1 `session/load`, v2 `session/resume` replaying from the start) and sends the
// short prompt until it is taken (for at most 15 s). The SDK is found in $ACP_SDK_DIR, the
// `ws` package in $ACP_NODE_MODULES.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const argv = process.argv.slice(2);
const url = argv[0];
const flag = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const protocol = Number(flag("--protocol") ?? 1);
const long = flag("--prompt");
const quick = flag("--quick");
const sdk = (path) => import(pathToFileURL(join(process.env.ACP_SDK_DIR, path)).href);
const acp = await sdk(protocol === 2 ? "dist/v2/unstable/acp.js" : "dist/v1/unstable/acp.js");
const { createWebSocketStream } = await sdk("dist/transports/ws-stream.js");
const { createHttpStream } = await sdk("dist/transports/http-stream.js");
const { WebSocket } = await import(pathToFileURL(join(process.env.ACP_NODE_MODULES, "ws/wrapper.mjs")).href);
const open = () => (url.startsWith("http") ? createHttpStream(url) : createWebSocketStream(url, { WebSocket }));

const say = (event) => process.stdout.write(JSON.stringify(event) + "\n");
let kind = "update";
let idle = () => {};
const expectIdle = () => new Promise((resolve) => { idle = resolve; });

const app = acp.client({ name: "ts-cluster-client" })
  .onNotification("session/update", ({ params }) => {
    say({ event: kind, update: params.update });
    if (params.update.sessionUpdate === "state_update" && params.update.state === "idle") {
      idle(params.update.stopReason);
    }
  });

const initialize = (agent) => protocol === 2
  ? agent.request("initialize", { protocolVersion: 2, info: { name: "ts-cluster-client", version: "1.0.0" }, capabilities: {} })
  : agent.request("initialize", { protocolVersion: 1, clientInfo: { name: "ts-cluster-client", version: "1.0.0" }, clientCapabilities: {} });

const cwd = "/work";
const prompt = (agent, sessionId, text) => agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });

let sessionId;
try {
  await app.connectWith(open(), async (agent) => {
    await initialize(agent);
    const session = await agent.request("session/new", protocol === 2 ? { cwd } : { cwd, mcpServers: [] });
    sessionId = session.sessionId;
    say({ event: "session", sessionId });
    const ended = expectIdle();
    await prompt(agent, sessionId, long);
    if (protocol === 2) {
      await ended;
    }
  });
  say({ event: "error", error: "the turn ended before the connection did" });
} catch (error) {
  say({ event: "disconnected", error: String(error?.message ?? error) });
}

if (sessionId) {
  kind = "replayed";
  const deadline = Date.now() + 15000;
  let done = false;
  while (!done && Date.now() < deadline) {
    try {
      await app.connectWith(open(), async (agent) => {
        await initialize(agent);
        if (protocol === 2) {
          await agent.request("session/resume", { sessionId, cwd, replayFrom: { type: "start" } });
        } else {
          await agent.request("session/load", { sessionId, cwd, mcpServers: [] });
        }
        kind = "update";
        while (Date.now() < deadline) {
          try {
            const ended = expectIdle();
            const answer = await prompt(agent, sessionId, quick);
            say({ event: "prompted", stopReason: protocol === 2 ? await ended : answer.stopReason });
            return;
          } catch (error) {
            if (error?.code !== -32010) {
              throw error;
            }
            say({ event: "busy", code: error.code, message: error.message, data: error.data ?? null });
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        }
      });
      done = true;
    } catch (error) {
      // The balancer may still send the first attempt to the dead instance: connect again.
      say({ event: "error", error: String(error?.message ?? error) });
      kind = "replayed";
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
process.exit(0);
