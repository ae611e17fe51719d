// A small ACP agent written with the official TypeScript SDK and served by the SDK's own
// server transports over WebSocket (ws package) and Streamable HTTP on one port, for the
// interop tests of `acp client --url`.
//
//   node ts_ws_agent.mjs [--protocol 1|2] [--ask]
//
// Prints `listening on ws://127.0.0.1:PORT/acp` on standard output once it listens. Each
// prompt is answered with a text and a notice (in v1 only when the client advertised
// `session.notices`, else with an agent message saying so); with --ask, between the two, it
// asks the client's permission for a tool call and says whether it was allowed. Sessions can
// be continued from another connection (v1 `session/load`, v2 `session/resume` replaying from
// the start): their prompts and answers are replayed (never the notice). The SDK is found in
// $ACP_SDK_DIR, the `ws` package in $ACP_NODE_MODULES.
import http from "node:http";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const argv = process.argv.slice(2);
const protocol = argv.includes("--protocol") ? Number(argv[argv.indexOf("--protocol") + 1]) : 1;
const ask = argv.includes("--ask");
const sdk = (path) => import(pathToFileURL(join(process.env.ACP_SDK_DIR, path)).href);
const acp = await sdk(protocol === 2 ? "dist/v2/unstable/acp.js" : "dist/v1/unstable/acp.js");
const { AcpServer } = await sdk("dist/transports/server.js");
const { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } = await sdk("dist/transports/node-adapter.js");
const { WebSocketServer } = await import(pathToFileURL(join(process.env.ACP_NODE_MODULES, "ws/wrapper.mjs")).href);

// Shared by every connection: what each session said ([prompt, [answers]]), for
// `session/load` and `session/resume`.
const histories = new Map();
let nextSession = 1;
let nextMessage = 1;
let nextCall = 1;
const permissionOptions = [
  { optionId: "allow", name: "Allow", kind: "allow_once" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];
const text = (prompt) => prompt.filter((b) => b.type === "text").map((b) => b.text).join("\n");

function makeAgent() {
  let clientCaps = {};
  const app = acp.agent({ name: "ts-ws-agent" })
    .onRequest("initialize", ({ params }) => {
      clientCaps = protocol === 2 ? params.capabilities ?? {} : params.clientCapabilities ?? {};
      if (protocol === 2) {
        return { protocolVersion: 2, info: { name: "ts-ws-agent", version: "1.0.0" }, capabilities: { session: {} } };
      }
      return { protocolVersion: 1, agentInfo: { name: "ts-ws-agent", version: "1.0.0" },
               agentCapabilities: { loadSession: true } };
    })
    .onRequest("session/new", () => {
      const sessionId = `ts_ws_${nextSession++}`;
      histories.set(sessionId, []);
      return { sessionId };
    })
    .onRequest("session/prompt", async ({ params, client }) => {
      const sessionId = params.sessionId;
      const said = text(params.prompt);
      const update = (u) => client.notify("session/update", { sessionId, update: u });
      const chunk = (t, messageId) => protocol === 2
        ? { sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text: t } }
        : { sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } };
      const answer = `Hello over WebSocket, you said: ${said}`;
      const answers = [answer];
      histories.get(sessionId)?.push([said, answers]);
      const askPermission = async (messageId) => {
        const toolCallId = `ts_call_${nextCall++}`;
        const response = protocol === 2
          ? await client.request("session/request_permission", { sessionId, title: "Count the words",
              options: permissionOptions, subject: { type: "tool_call", toolCall: { toolCallId } } })
          : await client.request("session/request_permission", { sessionId,
              toolCall: { toolCallId, title: "Count the words" }, options: permissionOptions });
        const allowed = response.outcome?.outcome === "selected" && response.outcome.optionId === "allow";
        const words = said.split(/\s+/).filter(Boolean).length;
        const verdict = allowed ? `Counted ${words} words.` : "Not allowed, so I did not count.";
        answers.push(verdict);
        await update(chunk(verdict, messageId));
      };
      const turn = async (messageId) => {
        await update(chunk(answer, messageId));
        if (ask) await askPermission(messageId);
        if (protocol === 2 || clientCaps.session?.notices) {
          await update({ sessionUpdate: "notice", severity: "warning", title: "Quota almost used", description: "90% of today's quota" });
        } else {
          await update(chunk("Warning: Quota almost used - 90% of today's quota", messageId));
        }
      };
      if (protocol === 2) {
        const userId = `user_${nextMessage++}`;
        const agentId = `agent_${nextMessage++}`;
        setTimeout(async () => {
          await update({ sessionUpdate: "user_message", messageId: userId, content: params.prompt });
          await update({ sessionUpdate: "state_update", state: "running" });
          await turn(agentId);
          await update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
        }, 10);
        return { messageId: userId };
      }
      await turn();
      return { stopReason: "end_turn" };
    })
    .onNotification("session/cancel", () => {});
  if (protocol === 1) {
    app.onRequest("session/load", async ({ params, client }) => {
      const history = histories.get(params.sessionId);
      if (!history) throw acp.RequestError.resourceNotFound(params.sessionId);
      const update = (u) => client.notify("session/update", { sessionId: params.sessionId, update: u });
      for (const [said, answers] of history) {
        await update({ sessionUpdate: "user_message_chunk", content: { type: "text", text: said } });
        for (const answer of answers) {
          await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: answer } });
        }
      }
      return {};
    });
  } else {
    app.onRequest("session/resume", async ({ params, client }) => {
      const history = histories.get(params.sessionId);
      if (!history) throw acp.RequestError.resourceNotFound(params.sessionId);
      const update = (u) => client.notify("session/update", { sessionId: params.sessionId, update: u });
      if (params.replayFrom) {
        for (const [said, answers] of history) {
          await update({ sessionUpdate: "user_message", messageId: `user_${nextMessage++}`,
                         content: [{ type: "text", text: said }] });
          const messageId = `agent_${nextMessage++}`;
          for (const answer of answers) {
            await update({ sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text: answer } });
          }
        }
        await update({ sessionUpdate: "replay_complete" });
      }
      await update({ sessionUpdate: "state_update", state: "idle" });
      return {};
    });
  }
  return app;
}

const server = new AcpServer({ createAgent: makeAgent });
const httpServer = http.createServer(createNodeHttpHandler(server));
const upgrade = createNodeWebSocketUpgradeHandler(server, new WebSocketServer({ noServer: true }));
httpServer.on("upgrade", (req, socket, head) => upgrade(req, socket, head));
httpServer.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening on ws://127.0.0.1:${httpServer.address().port}/acp\n`);
});
const stop = async () => { await server.close(); httpServer.close(); process.exit(0); };
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
