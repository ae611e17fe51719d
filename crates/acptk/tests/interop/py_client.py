"""A small ACP client written with the official Python SDK, for the interop tests of
`acp agent`: it launches the agent command given after `--`, opens a session, sends one prompt
and prints what it received as one JSON object on standard output.

    python py_client.py [--protocol 1|2] [--no-notices] --prompt TEXT -- AGENT_COMMAND...
"""

import asyncio
import json
import os
import sys

import acp
from acp import schema as v1

argv = sys.argv[1:]
split = argv.index("--")
own, command = argv[:split], argv[split + 1:]
PROTOCOL = int(own[own.index("--protocol") + 1]) if "--protocol" in own else 1
NOTICES = "--no-notices" not in own
PROMPT = own[own.index("--prompt") + 1]


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True) if hasattr(model, "model_dump") else model


class Recorder:
    def __init__(self):
        self.updates = []
        self.idle = asyncio.get_running_loop().create_future()

    def on_connect(self, conn):
        pass

    async def session_update(self, session_id, update, **kwargs):
        update = dump(update)
        self.updates.append(update)
        if update.get("sessionUpdate") == "state_update" and update.get("state") == "idle" and not self.idle.done():
            self.idle.set_result(update.get("stopReason"))

    async def request_permission(self, *args, **kwargs):
        return {"outcome": {"outcome": "cancelled"}}


async def main():
    seen = {"protocolVersion": None, "agent": None, "updates": [], "stopReason": None}
    recorder = Recorder()
    process = await asyncio.create_subprocess_exec(
        *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=50 * 1024 * 1024)
    try:
        if PROTOCOL == 2:
            from acp.experimental.v2 import client as v2client
            from acp.experimental.v2 import schema as v2
            conn = v2client.connect_to_agent(recorder, process.stdin, process.stdout)
            init = await conn.initialize(2, v2.Implementation(name="py-interop-client", version="1.0.0"))
            seen["protocolVersion"] = init.protocol_version
            seen["agent"] = init.info.name
            session = await conn.new_session(cwd=os.getcwd())
            await conn.prompt(session.session_id, [v2.TextContentBlock(type="text", text=PROMPT)])
            seen["stopReason"] = await asyncio.wait_for(recorder.idle, 20)
        else:
            conn = acp.connect_to_agent(recorder, process.stdin, process.stdout, use_unstable_protocol=True)
            caps = v1.ClientCapabilities.model_validate({"session": {"notices": {}}} if NOTICES else {})
            init = await conn.initialize(1, caps, v1.Implementation(name="py-interop-client", version="1.0.0"))
            seen["protocolVersion"] = init.protocol_version
            seen["agent"] = init.agent_info.name if init.agent_info else None
            session = await conn.new_session(cwd=os.getcwd(), mcp_servers=[])
            response = await conn.prompt(session.session_id, [v1.TextContentBlock(type="text", text=PROMPT)])
            seen["stopReason"] = response.stop_reason
    except Exception as error:  # reported, not raised: the test reads the JSON
        seen["error"] = repr(error)
    seen["updates"] = recorder.updates
    process.stdin.close()
    try:
        await asyncio.wait_for(process.wait(), 10)
    except asyncio.TimeoutError:
        process.kill()
    print(json.dumps(seen))


asyncio.run(main())
