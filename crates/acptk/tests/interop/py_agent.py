"""A small ACP agent written with the official Python SDK (PyPI `agent-client-protocol`), for
the interop tests of `acp client`.

    python py_agent.py [--protocol 1|2] [--auth] [--notices] [--slow]

--auth: session/new fails with -32000 until the client signs in with method `token`.
--notices: each prompt is answered with a notice (in v1 only when the client advertised
`session.notices`, else with an agent message saying so).
--slow (v1): each prompt streams a dot every 100 ms for 30 s, until the client cancels.
What it learnt from the client (the MCP servers of each session/new included) goes to
$ACP_TEST_LOG as JSON lines.
"""

import asyncio
import json
import os
import sys

import acp
from acp import schema as v1

PROTOCOL = int(sys.argv[sys.argv.index("--protocol") + 1]) if "--protocol" in sys.argv else 1
REQUIRE_AUTH = "--auth" in sys.argv
NOTICES = "--notices" in sys.argv
SLOW = "--slow" in sys.argv


def log(record):
    path = os.environ.get("ACP_TEST_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")


def servers(mcp_servers):
    """The MCP servers of a session set-up request, as JSON."""
    return [server.model_dump(by_alias=True, exclude_none=True) if hasattr(server, "model_dump") else server
            for server in (mcp_servers or [])]


def said(prompt):
    return "\n".join(getattr(block, "text", "") for block in prompt if getattr(block, "type", "") == "text")


class V1Agent:
    def __init__(self):
        self.conn = None
        self.caps = {}
        self.signed_in = False

    def on_connect(self, conn):
        self.conn = conn

    async def initialize(self, protocol_version, client_capabilities=None, client_info=None, **kwargs):
        self.caps = client_capabilities.model_dump(by_alias=True, exclude_none=True) if client_capabilities else {}
        log({"event": "initialize", "protocolVersion": protocol_version, "capabilities": self.caps})
        methods = [{"type": "agent", "id": "token", "name": "Use a token", "description": "Signs in with a test token"}] if REQUIRE_AUTH else []
        return v1.InitializeResponse.model_validate({
            "protocolVersion": 1,
            "agentInfo": {"name": "py-interop-agent", "version": "1.0.0"},
            "agentCapabilities": {"sessionCapabilities": {"list": {}}},
            "authMethods": methods,
        })

    async def authenticate(self, method_id, **kwargs):
        log({"event": "authenticate", "methodId": method_id})
        if method_id != "token":
            raise acp.RequestError.invalid_params({"message": "unknown method"})
        self.signed_in = True
        return v1.AuthenticateResponse()

    async def new_session(self, cwd, additional_directories=None, mcp_servers=None, **kwargs):
        if REQUIRE_AUTH and not self.signed_in:
            raise acp.RequestError.auth_required()
        log({"event": "session/new", "cwd": cwd, "mcpServers": servers(mcp_servers)})
        return v1.NewSessionResponse.model_validate({
            "sessionId": "py_1",
            "modes": {"currentModeId": "ask", "availableModes": [{"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code"}]},
        })

    async def list_sessions(self, cwd=None, cursor=None, **kwargs):
        return v1.ListSessionsResponse.model_validate({"sessions": [{"sessionId": "py_old", "cwd": "/old", "title": "A Python session"}]})

    async def set_session_mode(self, session_id, mode_id, **kwargs):
        log({"event": "set_mode", "modeId": mode_id})
        return v1.SetSessionModeResponse()

    async def prompt(self, session_id, prompt, **kwargs):
        text = said(prompt)
        await self.conn.session_update(session_id, v1.AgentMessageChunk.model_validate({
            "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"Hello from Python, you said: {text}"}}))
        if NOTICES:
            if (self.caps.get("session") or {}).get("notices") is not None:
                await self.conn.session_update(session_id, v1.SessionUpdateNotice.model_validate({
                    "sessionUpdate": "notice", "severity": "error", "title": "Index out of date", "description": "Rebuilding it"}))
            else:
                await self.conn.session_update(session_id, v1.AgentMessageChunk.model_validate({
                    "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Error: Index out of date - Rebuilding it"}}))
        if SLOW:
            self.cancelled = False
            log({"event": "streaming", "pid": os.getpid()})
            for _ in range(300):
                if self.cancelled:
                    log({"event": "cancelled"})
                    return v1.PromptResponse.model_validate({"stopReason": "cancelled"})
                await self.conn.session_update(session_id, v1.AgentMessageChunk.model_validate({
                    "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "."}}))
                await asyncio.sleep(0.1)
        return v1.PromptResponse.model_validate({"stopReason": "end_turn"})

    async def cancel(self, session_id, **kwargs):
        self.cancelled = True
        return None


async def main_v1():
    await acp.run_agent(V1Agent(), use_unstable_protocol=True)


async def main_v2():
    from acp.experimental.v2 import agent as v2agent
    from acp.experimental.v2 import schema as v2

    class V2Agent:
        def __init__(self):
            self.conn = None
            self.signed_in = False
            self.messages = 0

        def on_connect(self, conn):
            self.conn = conn

        async def initialize(self, protocol_version, info, capabilities=None, **kwargs):
            log({"event": "initialize", "protocolVersion": protocol_version})
            methods = [{"type": "agent", "methodId": "token", "name": "Use a token"}] if REQUIRE_AUTH else []
            return v2.InitializeResponse.model_validate({
                "protocolVersion": 2, "info": {"name": "py-interop-agent", "version": "1.0.0"},
                "capabilities": {"session": {}}, "authMethods": methods})

        async def login(self, method_id, **kwargs):
            log({"event": "authenticate", "methodId": method_id})
            self.signed_in = method_id == "token"
            return v2.LoginAuthResponse()

        async def new_session(self, cwd, additional_directories=None, mcp_servers=None, **kwargs):
            if REQUIRE_AUTH and not self.signed_in:
                raise acp.RequestError.auth_required()
            log({"event": "session/new", "cwd": cwd, "mcpServers": servers(mcp_servers)})
            return v2.NewSessionResponse.model_validate({"sessionId": "py_2"})

        async def prompt(self, session_id, prompt, **kwargs):
            self.messages += 1
            user_id = f"user_{self.messages}"
            text = said(prompt)

            async def turn():
                await asyncio.sleep(0.01)
                send = lambda update: self.conn.session_update(session_id, update)
                await send(v2.UserMessageUpdate.model_validate({
                    "sessionUpdate": "user_message", "messageId": user_id,
                    "content": [{"type": "text", "text": text}]}))
                await send(v2.StateUpdateModel.model_validate({"sessionUpdate": "state_update", "state": "running"})
                           if hasattr(v2, "StateUpdateModel") else
                           {"sessionUpdate": "state_update", "state": "running"})
                await send(v2.AgentMessageChunk.model_validate({
                    "sessionUpdate": "agent_message_chunk", "messageId": f"agent_{self.messages}",
                    "content": {"type": "text", "text": f"Hello from Python v2, you said: {text}"}}))
                if NOTICES:
                    await send({"sessionUpdate": "notice", "severity": "info", "title": "Using the cache"})
                await send({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})

            asyncio.get_running_loop().create_task(turn())
            return v2.PromptResponse.model_validate({"messageId": user_id})

        async def cancel_session(self, session_id, **kwargs):
            return None

    await v2agent.run_agent(V2Agent())


if __name__ == "__main__":
    asyncio.run(main_v2() if PROTOCOL == 2 else main_v1())
