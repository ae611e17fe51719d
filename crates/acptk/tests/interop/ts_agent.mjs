// A small ACP agent written with the official TypeScript SDK (@agentclientprotocol/sdk), for
// the interop tests of `acp client`.
//
//   node ts_agent.mjs [--protocol 1|2] [--auth] [--notices] [--slow]
//
// --slow (v1): each prompt streams a dot every 100 ms for 30 s, until the client cancels.
// --auth: session/new fails with -32000 until the client signs in with method `token`.
// --notices: each prompt is answered with a notice (in v1 only when the client advertised
//   `session.notices`, else with an agent message saying so).
// It offers modes and a `model` config option, reads the file named after `read ` in a
// prompt through the client (v1), takes stdio MCP servers and HTTP ones (v1), and appends what
// it learnt from the client (the MCP servers of each session/new included) to $ACP_TEST_LOG
// as JSON lines. The SDK is found in $ACP_SDK_DIR.
import { appendFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const argv = process.argv.slice(2);
const protocol = argv.includes("--protocol") ? Number(argv[argv.indexOf("--protocol") + 1]) : 1;
const requireAuth = argv.includes("--auth");
const sendNotices = argv.includes("--notices");
const slow = argv.includes("--slow");
let cancelled = false;
const entry = protocol === 2 ? "dist/v2/unstable/acp.js" : "dist/v1/unstable/acp.js";
const acp = await import(pathToFileURL(join(process.env.ACP_SDK_DIR, entry)).href);

const log = (record) => {
  if (process.env.ACP_TEST_LOG) appendFileSync(process.env.ACP_TEST_LOG, JSON.stringify(record) + "\n");
};

let signedIn = false;
let clientCaps = {};
let nextSession = 1;
let nextMessage = 1;
const modes = [
  { id: "ask", name: "Ask" },
  { id: "code", name: "Code", description: "Edits files" },
];
let model = "small";
const configOptions = () => [
  protocol === 2
    ? { configId: "model", name: "Model", category: "model", type: "select", currentValue: model,
        options: [{ value: "small", name: "Small" }, { value: "large", name: "Large" }] }
    : { id: "model", name: "Model", category: "model", type: "select", currentValue: model,
        options: [{ value: "small", name: "Small" }, { value: "large", name: "Large" }] },
];
const authMethods = requireAuth
  ? [protocol === 2
      ? { type: "agent", methodId: "token", name: "Use a token", description: "Signs in with a test token" }
      : { id: "token", name: "Use a token", description: "Signs in with a test token" }]
  : [];

const text = (prompt) => prompt.filter((b) => b.type === "text").map((b) => b.text).join("\n");

const app = acp.agent({ name: "ts-interop-agent" })
  .onRequest("initialize", ({ params }) => {
    clientCaps = protocol === 2 ? params.capabilities ?? {} : params.clientCapabilities ?? {};
    log({ event: "initialize", protocolVersion: params.protocolVersion, capabilities: clientCaps });
    if (protocol === 2) {
      return { protocolVersion: 2, info: { name: "ts-interop-agent", version: "1.0.0" },
               capabilities: { session: { mcp: { stdio: {} } } }, authMethods };
    }
    return { protocolVersion: 1, agentInfo: { name: "ts-interop-agent", version: "1.0.0" },
             agentCapabilities: { loadSession: false, sessionCapabilities: { list: {} },
                                  mcpCapabilities: { http: true, sse: false } }, authMethods };
  })
  .onRequest(protocol === 2 ? "auth/login" : "authenticate", ({ params }) => {
    log({ event: "authenticate", methodId: params.methodId });
    if (params.methodId !== "token") throw acp.RequestError.invalidParams(undefined, "unknown method");
    signedIn = true;
    return {};
  })
  .onRequest("session/new", ({ params }) => {
    if (requireAuth && !signedIn) throw acp.RequestError.authRequired();
    const sessionId = `ts_${nextSession++}`;
    log({ event: "session/new", cwd: params.cwd, mcpServers: params.mcpServers ?? [] });
    if (protocol === 2) return { sessionId, configOptions: configOptions() };
    return { sessionId, modes: { currentModeId: "ask", availableModes: modes }, configOptions: configOptions() };
  })
  .onRequest("session/list", () => ({
    sessions: [{ sessionId: "ts_old", cwd: "/old", title: "An old session", updatedAt: "2025-06-01T10:00:00Z" }],
  }))
  .onRequest("session/set_config_option", ({ params }) => {
    log({ event: "set_config_option", configId: params.configId, value: params.value });
    model = params.value;
    return { configOptions: configOptions() };
  })
  .onRequest("session/prompt", async ({ params, client }) => {
    const sessionId = params.sessionId;
    const said = text(params.prompt);
    const update = (u) => client.notify("session/update", { sessionId, update: u });
    const chunk = (t, messageId) => protocol === 2
      ? { sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text: t } }
      : { sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } };
    const turn = async (messageId) => {
      await update(chunk(`Hello from TypeScript, you said: ${said}`, messageId));
      if (sendNotices) {
        if (protocol === 2 || clientCaps.session?.notices) {
          await update({ sessionUpdate: "notice", severity: "warning", title: "Quota almost used", description: "90% of today's quota" });
        } else {
          await update(chunk("Warning: Quota almost used - 90% of today's quota", messageId));
        }
      }
      if (protocol === 1 && said.startsWith("read ") && clientCaps.fs?.readTextFile) {
        const file = await client.request("fs/read_text_file", { sessionId, path: said.slice(5).trim() });
        await update(chunk(` The file says: ${file.content.trim()}`));
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
    if (slow) {
      cancelled = false;
      log({ event: "streaming", pid: process.pid });
      for (let i = 0; i < 300 && !cancelled; i++) {
        await update(chunk("."));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      if (cancelled) {
        log({ event: "cancelled" });
        return { stopReason: "cancelled" };
      }
    }
    return { stopReason: "end_turn" };
  })
  .onNotification("session/cancel", () => { cancelled = true; });
if (protocol === 1) {
  app.onRequest("session/set_mode", ({ params }) => {
    log({ event: "set_mode", modeId: params.modeId });
    return {};
  });
}

const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
await connection.closed;
