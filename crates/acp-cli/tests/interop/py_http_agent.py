"""A small ACP v1 agent written with the official Python SDK (PyPI `agent-client-protocol`,
with its `http` extra) and served over Streamable HTTP by the SDK's own ASGI application
(`acp.http.asgi.create_asgi_app`) under uvicorn, for the interop tests of `acp client --url`.

    python py_http_agent.py

Prints `listening on http://127.0.0.1:PORT/acp` on standard output once it listens. Each
prompt is answered with a text and a notice (only when the client advertised
`session.notices`, else with an agent message saying so); the prompt `ask` first asks the
client's permission and says what it was told. Sessions can be loaded from another
connection: their prompts and answers are replayed (never the notice).
"""

import asyncio
import socket

import uvicorn
from acp import RequestError
from acp import schema as v1
from acp.http.asgi import create_asgi_app

# Shared by every connection: what each session said, for `session/load`.
HISTORIES = {}
COUNTER = {"sessions": 0}


def said(prompt):
    return "\n".join(getattr(block, "text", "") for block in prompt if getattr(block, "type", "") == "text")


def chunk(kind, text):
    return v1.AgentMessageChunk.model_validate({"sessionUpdate": kind, "content": {"type": "text", "text": text}}) \
        if kind == "agent_message_chunk" else \
        v1.UserMessageChunk.model_validate({"sessionUpdate": kind, "content": {"type": "text", "text": text}})


class HttpAgent:
    def __init__(self, conn):
        self.conn = conn
        self.caps = {}

    async def initialize(self, protocol_version, client_capabilities=None, client_info=None, **kwargs):
        self.caps = client_capabilities.model_dump(by_alias=True, exclude_none=True) if client_capabilities else {}
        return v1.InitializeResponse.model_validate({
            "protocolVersion": 1,
            "agentInfo": {"name": "py-http-agent", "version": "1.0.0"},
            "agentCapabilities": {"loadSession": True},
        })

    async def new_session(self, cwd, additional_directories=None, mcp_servers=None, **kwargs):
        COUNTER["sessions"] += 1
        session_id = f"py_http_{COUNTER['sessions']}"
        HISTORIES[session_id] = []
        return v1.NewSessionResponse.model_validate({"sessionId": session_id})

    async def load_session(self, cwd, session_id, mcp_servers=None, additional_directories=None, **kwargs):
        history = HISTORIES.get(session_id)
        if history is None:
            raise RequestError.resource_not_found(session_id)
        for text, answer in history:
            await self.conn.session_update(session_id, chunk("user_message_chunk", text))
            await self.conn.session_update(session_id, chunk("agent_message_chunk", answer))
        return v1.LoadSessionResponse()

    async def prompt(self, session_id, prompt, **kwargs):
        text = said(prompt)
        answer = f"Hello over HTTP from Python, you said: {text}"
        if text == "ask":
            outcome = await self.conn.request_permission(
                session_id,
                v1.ToolCallUpdate.model_validate({"toolCallId": "call_1", "title": "Delete everything"}),
                [v1.PermissionOption.model_validate({"optionId": "allow", "name": "Allow", "kind": "allow_once"})],
            )
            answer = f"permission: {outcome.outcome.outcome}"
        HISTORIES.setdefault(session_id, []).append((text, answer))
        await self.conn.session_update(session_id, chunk("agent_message_chunk", answer))
        if (self.caps.get("session") or {}).get("notices") is not None:
            await self.conn.session_update(session_id, v1.SessionUpdateNotice.model_validate({
                "sessionUpdate": "notice", "severity": "warning", "title": "Quota almost used",
                "description": "90% of today's quota"}))
        else:
            await self.conn.session_update(session_id, chunk(
                "agent_message_chunk", "Warning: Quota almost used - 90% of today's quota"))
        return v1.PromptResponse.model_validate({"stopReason": "end_turn"})

    async def cancel(self, session_id, **kwargs):
        return None


async def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    app = create_asgi_app(HttpAgent)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    print(f"listening on http://127.0.0.1:{port}/acp", flush=True)
    await server.serve(sockets=[listener])


if __name__ == "__main__":
    asyncio.run(main())
