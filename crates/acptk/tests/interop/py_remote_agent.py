"""A small ACP agent written with the official Python SDK and served by the SDK's own ASGI
app (WebSocket and Streamable HTTP on one endpoint, under uvicorn), for the interop tests of
`acp client --url`. One process speaks v1 and v2: the SDK's protocol router picks the version
from each connection's `initialize`.

    python py_remote_agent.py

Prints `listening on ws://127.0.0.1:PORT/acp` on standard output once it listens. Each prompt
is answered with a text, a tool call that it asks the client's permission for (and reports as
done or refused), and a notice (in v1 only when the client advertised `session.notices`,
else an agent message saying so). Sessions are shared by all connections: a v1 client can
load one (`session/load`), a v2 client resume one replaying from the start; their prompts
and answers are replayed, never the notice.
"""

import asyncio
import socket

import uvicorn

from acp import schema as v1
from acp.experimental.negotiation import AgentProtocolRouter
from acp.experimental.v2 import schema as v2
from acp.http.asgi import create_asgi_app

# What each session said, shared by every connection: [(prompt, [agent texts])].
HISTORIES = {}
COUNTER = {"session": 0, "call": 0, "message": 0}
FALLBACK = "Warning: Quota almost used - 90% of today's quota"


def said(prompt):
    return "\n".join(getattr(block, "text", "") for block in prompt if getattr(block, "type", "") == "text")


def fresh(kind):
    COUNTER[kind] += 1
    return f"py_{kind}_{COUNTER[kind]}"


def outcome_allows(response):
    outcome = response.outcome
    return getattr(outcome, "outcome", None) == "selected" and getattr(outcome, "option_id", None) == "allow"


class V1Agent:
    def __init__(self, conn):
        self.conn = conn
        self.notices = False

    async def initialize(self, protocol_version, client_capabilities=None, client_info=None, **kwargs):
        caps = client_capabilities.model_dump(by_alias=True, exclude_none=True) if client_capabilities else {}
        self.notices = (caps.get("session") or {}).get("notices") is not None
        return v1.InitializeResponse.model_validate({
            "protocolVersion": 1, "agentInfo": {"name": "py-remote-agent", "version": "1.0.0"},
            "agentCapabilities": {"loadSession": True}})

    async def new_session(self, cwd, additional_directories=None, mcp_servers=None, **kwargs):
        session_id = fresh("session")
        HISTORIES[session_id] = []
        return v1.NewSessionResponse(session_id=session_id)

    async def load_session(self, cwd, session_id, mcp_servers=None, additional_directories=None, **kwargs):
        if session_id not in HISTORIES:
            from acp import RequestError
            raise RequestError.resource_not_found(session_id)
        for prompt, answers in HISTORIES[session_id]:
            await self.send(session_id, {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": prompt}})
            for answer in answers:
                await self.say(session_id, answer)
        return v1.LoadSessionResponse()

    async def send(self, session_id, update):
        model = {
            "user_message_chunk": v1.UserMessageChunk, "agent_message_chunk": v1.AgentMessageChunk,
            "tool_call": v1.ToolCallStart, "tool_call_update": v1.ToolCallProgress, "notice": v1.SessionUpdateNotice,
        }[update["sessionUpdate"]]
        await self.conn.session_update(session_id, model.model_validate(update))

    async def say(self, session_id, text):
        await self.send(session_id, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}})

    async def prompt(self, session_id, prompt, **kwargs):
        text = said(prompt)
        answers = [f"Hello from Python, you said: {text}"]
        await self.say(session_id, answers[0])
        call = fresh("call")
        await self.send(session_id, {"sessionUpdate": "tool_call", "toolCallId": call,
                                     "title": "Count the words", "status": "pending"})
        response = await self.conn.request_permission(
            session_id, v1.ToolCallUpdate(tool_call_id=call, title="Count the words"),
            [v1.PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
             v1.PermissionOption(option_id="reject", name="Reject", kind="reject_once")])
        allowed = outcome_allows(response)
        await self.send(session_id, {"sessionUpdate": "tool_call_update", "toolCallId": call,
                                     "status": "completed" if allowed else "failed"})
        answers.append(f"Counted {len(text.split())} words." if allowed else "Not allowed, so I did not count.")
        await self.say(session_id, answers[1])
        if self.notices:
            await self.send(session_id, {"sessionUpdate": "notice", "severity": "warning",
                                         "title": "Quota almost used", "description": "90% of today's quota"})
        else:
            await self.say(session_id, FALLBACK)
        HISTORIES.setdefault(session_id, []).append((text, answers))
        return v1.PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id, **kwargs):
        return None


class V2Agent:
    def __init__(self, conn):
        self.conn = conn

    async def initialize(self, protocol_version, info, capabilities=None, **kwargs):
        return v2.InitializeResponse.model_validate({
            "protocolVersion": 2, "info": {"name": "py-remote-agent", "version": "1.0.0"},
            "capabilities": {"session": {}}})

    async def new_session(self, cwd, additional_directories=None, mcp_servers=None, **kwargs):
        session_id = fresh("session")
        HISTORIES[session_id] = []
        return v2.NewSessionResponse(session_id=session_id)

    async def resume_session(self, session_id, cwd, additional_directories=None, mcp_servers=None,
                             replay_from=None, **kwargs):
        if session_id not in HISTORIES:
            from acp import RequestError
            raise RequestError.resource_not_found(session_id)
        if replay_from is not None:
            for prompt, answers in HISTORIES[session_id]:
                await self.send(session_id, {"sessionUpdate": "user_message", "messageId": fresh("message"),
                                             "content": [{"type": "text", "text": prompt}]})
                for answer in answers:
                    await self.say(session_id, fresh("message"), answer)
            # The end of the replay (this SDK version has no model for it yet).
            await self.send(session_id, {"sessionUpdate": "replay_complete"})
        await self.send(session_id, {"sessionUpdate": "state_update", "state": "idle"})
        return v2.ResumeSessionResponse()

    async def send(self, session_id, update):
        await self.conn.session_update(session_id, update)

    async def say(self, session_id, message_id, text):
        await self.send(session_id, {"sessionUpdate": "agent_message_chunk", "messageId": message_id,
                                     "content": {"type": "text", "text": text}})

    async def prompt(self, session_id, prompt, **kwargs):
        user_id = fresh("message")
        text = said(prompt)
        asyncio.get_running_loop().create_task(self.turn(session_id, user_id, text))
        return v2.PromptResponse(message_id=user_id)

    async def turn(self, session_id, user_id, text):
        await asyncio.sleep(0.01)
        await self.send(session_id, {"sessionUpdate": "user_message", "messageId": user_id,
                                     "content": [{"type": "text", "text": text}]})
        await self.send(session_id, {"sessionUpdate": "state_update", "state": "running"})
        answers = [f"Hello from Python, you said: {text}"]
        await self.say(session_id, fresh("message"), answers[0])
        call = fresh("call")
        response = await self.conn.request_permission(
            session_id, "Count the words",
            [v2.PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
             v2.PermissionOption(option_id="reject", name="Reject", kind="reject_once")],
            subject=v2.ToolCallPermissionSubjectVariant(tool_call=v2.ToolCallUpdate(tool_call_id=call)))
        allowed = outcome_allows(response)
        answers.append(f"Counted {len(text.split())} words." if allowed else "Not allowed, so I did not count.")
        await self.say(session_id, fresh("message"), answers[1])
        await self.send(session_id, {"sessionUpdate": "notice", "severity": "warning",
                                     "title": "Quota almost used", "description": "90% of today's quota"})
        HISTORIES.setdefault(session_id, []).append((text, answers))
        await self.send(session_id, {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})

    async def cancel_session(self, session_id, **kwargs):
        return None


async def main():
    app = create_asgi_app(AgentProtocolRouter(v1=V1Agent, v2=V2Agent))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws="websockets-sansio"))
    print(f"listening on ws://127.0.0.1:{sock.getsockname()[1]}/acp", flush=True)
    await server.serve(sockets=[sock])


if __name__ == "__main__":
    asyncio.run(main())
