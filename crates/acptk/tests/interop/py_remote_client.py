"""A small ACP client written with the official Python SDK, connecting by URL over the SDK's
WebSocket transport (ws://) or its Streamable HTTP transport (http://), for the interop tests
of `acp agent --listen`. It opens a session and sends each prompt in turn, answering the
agent's permission requests (the first "allow" option with --allow, else a rejection). With
--reconnect it then closes the connection, opens a new one and continues the session (v1
`session/load`, v2 `session/resume` replaying from the start). It prints what it received as
one JSON object on standard output.

    python py_remote_client.py URL [--protocol 1|2] [--no-notices] [--allow] [--reconnect]
                               --prompt TEXT [--prompt TEXT ...]
"""

import asyncio
import json
import os
import sys

import acp
from acp import schema as v1

argv = sys.argv[1:]
URL = argv[0]
PROTOCOL = int(argv[argv.index("--protocol") + 1]) if "--protocol" in argv else 1
NOTICES = "--no-notices" not in argv
ALLOW = "--allow" in argv
RECONNECT = "--reconnect" in argv
PROMPTS = [argv[i + 1] for i, flag in enumerate(argv) if flag == "--prompt"]
LIMIT = 30


def dump(model):
    if hasattr(model, "model_dump"):
        return model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return model


async def open_transport():
    if URL.startswith("ws"):
        from acp.ws import create_websocket_stream
        return await create_websocket_stream(URL)
    from acp.http import create_http_stream
    return create_http_stream(URL)


class Recorder:
    """Collects session updates (into `sink`) and answers permission requests."""

    def __init__(self, seen):
        self.seen = seen
        self.sink = seen["updates"]
        self.idle = None

    def on_connect(self, conn):
        pass

    def expect_idle(self):
        self.idle = asyncio.get_running_loop().create_future()
        return self.idle

    async def session_update(self, session_id, update, **kwargs):
        update = dump(update)
        self.sink.append(update)
        idle = update.get("sessionUpdate") == "state_update" and update.get("state") == "idle"
        if idle and self.idle is not None and not self.idle.done():
            self.idle.set_result(update.get("stopReason"))

    async def request_permission(self, session_id, *args, **kwargs):
        options = kwargs.get("options")
        if options is None:
            options = next(arg for arg in args if isinstance(arg, list))
        options = [dump(option) for option in options]
        allow = next((o for o in options if o.get("kind") == "allow_once"), None) if ALLOW else None
        self.seen["permissions"].append({"options": [o.get("optionId") for o in options],
                                         "answered": allow["optionId"] if allow else "rejected"})
        if allow is not None:
            return {"outcome": {"outcome": "selected", "optionId": allow["optionId"]}}
        reject = next((o for o in options if o.get("kind", "").startswith("reject")), None)
        if reject is not None:
            return {"outcome": {"outcome": "selected", "optionId": reject["optionId"]}}
        return {"outcome": {"outcome": "cancelled"}}


async def v1_run(seen, recorder):
    caps = v1.ClientCapabilities.model_validate({"session": {"notices": {}}} if NOTICES else {})
    info = v1.Implementation(name="py-remote-client", version="1.0.0")
    conn = acp.connect_to_agent(recorder, await open_transport(), use_unstable_protocol=True)
    init = await asyncio.wait_for(conn.initialize(1, caps, info), LIMIT)
    seen["protocolVersion"] = init.protocol_version
    seen["agent"] = init.agent_info.name if init.agent_info else None
    session = await asyncio.wait_for(conn.new_session(cwd=os.getcwd(), mcp_servers=[]), LIMIT)
    seen["sessionId"] = session.session_id
    for text in PROMPTS:
        response = await asyncio.wait_for(
            conn.prompt(session.session_id, [v1.TextContentBlock(type="text", text=text)]), LIMIT)
        seen["stopReasons"].append(response.stop_reason)
    await conn.close()
    if not RECONNECT:
        return
    recorder.sink = seen["replayed"]
    conn = acp.connect_to_agent(recorder, await open_transport(), use_unstable_protocol=True)
    init = await asyncio.wait_for(conn.initialize(1, caps, info), LIMIT)
    seen["loadSession"] = bool(init.agent_capabilities and init.agent_capabilities.load_session)
    await asyncio.wait_for(conn.load_session(cwd=os.getcwd(), session_id=session.session_id, mcp_servers=[]), LIMIT)
    await conn.close()


async def v2_run(seen, recorder):
    from acp.experimental.v2 import client as v2client
    from acp.experimental.v2 import schema as v2

    info = v2.Implementation(name="py-remote-client", version="1.0.0")
    conn = v2client.connect_to_agent(recorder, await open_transport())
    init = await asyncio.wait_for(conn.initialize(2, info), LIMIT)
    seen["protocolVersion"] = init.protocol_version
    seen["agent"] = init.info.name
    session = await asyncio.wait_for(conn.new_session(cwd=os.getcwd()), LIMIT)
    seen["sessionId"] = session.session_id
    for text in PROMPTS:
        idle = recorder.expect_idle()
        await asyncio.wait_for(conn.prompt(session.session_id, [v2.TextContentBlock(type="text", text=text)]), LIMIT)
        seen["stopReasons"].append(await asyncio.wait_for(idle, LIMIT))
    await conn.close()
    if not RECONNECT:
        return
    recorder.sink = seen["replayed"]
    conn = v2client.connect_to_agent(recorder, await open_transport())
    # v2 has no capability for resuming: every v2 agent offers `session/resume`.
    await asyncio.wait_for(conn.initialize(2, info), LIMIT)
    await asyncio.wait_for(conn.resume_session(session.session_id, os.getcwd(),
                                               replay_from=v2.ReplayFromStartVariant()), LIMIT)
    await conn.close()


async def main():
    seen = {"protocolVersion": None, "agent": None, "sessionId": None, "updates": [], "stopReasons": [],
            "permissions": [], "loadSession": None, "replayed": []}
    recorder = Recorder(seen)
    try:
        await (v2_run(seen, recorder) if PROTOCOL == 2 else v1_run(seen, recorder))
    except Exception as error:  # reported, not raised: the test reads the JSON
        seen["error"] = repr(error)
    print(json.dumps(seen), flush=True)


asyncio.run(main())
