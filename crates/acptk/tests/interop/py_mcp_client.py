"""Drives `acp inspect mcp` with the official MCP Python SDK's client.

Usage: py_mcp_client.py ACP DB CALLS_JSON

Starts `ACP inspect mcp --db DB` over stdio, lists the tools, then makes each call of
CALLS_JSON (a list of [tool, arguments]) and prints one JSON object on stdout:
{"tools": [names], "calls": [{"tool", "error": bool, "text"}]}.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    acp, db, calls = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    server = StdioServerParameters(command=acp, args=["inspect", "mcp", "--db", db])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            report = {
                "tools": [
                    {
                        "name": tool.name,
                        "required": (tool.input_schema or {}).get("required", []),
                        "read_only": bool(
                            tool.annotations and tool.annotations.read_only_hint
                        ),
                    }
                    for tool in tools.tools
                ],
                "calls": [],
            }
            for name, arguments in calls:
                result = await session.call_tool(name, arguments)
                text = "".join(
                    block.text for block in result.content if getattr(block, "text", None)
                )
                report["calls"].append(
                    {"tool": name, "error": bool(result.is_error), "text": text}
                )
    print(json.dumps(report))


asyncio.run(main())
