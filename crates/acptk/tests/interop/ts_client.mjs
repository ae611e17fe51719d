// A small ACP client written with the official TypeScript SDK, for the interop tests of
// `acp agent`: it launches the agent command given after `--`, opens a session, sends one
// prompt and prints what it received as one JSON object on standard output.
//
//   node ts_client.mjs [--protocol 1|2] [--no-notices] --prompt TEXT -- AGENT_COMMAND...
//
// The SDK is found in $ACP_SDK_DIR.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const own = argv.slice(0, split);
const command = argv.slice(split + 1);
const protocol = own.includes("--protocol") ? Number(own[own.indexOf("--protocol") + 1]) : 1;
const notices = !own.includes("--no-notices");
const promptText = own[own.indexOf("--prompt") + 1];
const entry = protocol === 2 ? "dist/v2/unstable/acp.js" : "dist/v1/unstable/acp.js";
const acp = await import(pathToFileURL(join(process.env.ACP_SDK_DIR, entry)).href);

const child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
const seen = { protocolVersion: null, agent: null, updates: [], stopReason: null };
let idle;
const turnEnded = new Promise((resolve) => { idle = resolve; });

const app = acp.client({ name: "ts-interop-client" })
  .onNotification("session/update", ({ params }) => {
    seen.updates.push(params.update);
    if (params.update.sessionUpdate === "state_update" && params.update.state === "idle") {
      idle(params.update.stopReason);
    }
  })
  .onRequest("session/request_permission", () => ({ outcome: protocol === 2 ? { outcome: "cancelled" } : { outcome: "cancelled" } }));

const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
try {
  await app.connectWith(stream, async (agent) => {
    const init = protocol === 2
      ? await agent.request("initialize", { protocolVersion: 2, info: { name: "ts-interop-client", version: "1.0.0" }, capabilities: {} })
      : await agent.request("initialize", {
          protocolVersion: 1,
          clientInfo: { name: "ts-interop-client", version: "1.0.0" },
          clientCapabilities: notices ? { session: { notices: {} } } : {},
        });
    seen.protocolVersion = init.protocolVersion;
    seen.agent = (protocol === 2 ? init.info : init.agentInfo)?.name ?? null;
    const session = await agent.request("session/new", protocol === 2 ? { cwd: process.cwd() } : { cwd: process.cwd(), mcpServers: [] });
    const prompt = [{ type: "text", text: promptText }];
    if (protocol === 2) {
      await agent.request("session/prompt", { sessionId: session.sessionId, prompt });
      seen.stopReason = await turnEnded;
    } else {
      const response = await agent.request("session/prompt", { sessionId: session.sessionId, prompt });
      seen.stopReason = response.stopReason;
    }
  });
} catch (error) {
  seen.error = String(error?.message ?? error);
}
child.stdin.end();
process.stdout.write(JSON.stringify(seen) + "\n");
await new Promise((resolve) => child.once("exit", resolve));
