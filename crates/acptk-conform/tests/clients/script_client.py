"""A small ACP client for the client suite's tests: it keeps every requirement of
`acp conform client` unless told to break one (argv[2]); argv[1] is the protocol version.

It initializes, opens a session, sends one prompt, answers the agent's requests, and leaves
when the turn has ended (v1: the prompt's response; v2: the `idle` state update)."""

import json
import subprocess
import sys

VERSION = int(sys.argv[1])
BROKEN = sys.argv[2] if len(sys.argv) > 2 else "none"
deaf = False  # stops answering (the "dies-*" modes)
session = None
terminals = {}
# Loads a session (v1) instead of creating one (the "load" modes).
LOADS = BROKEN in ("load", "dies-on-replayed-notice")


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def initialize():
    if BROKEN == "no-initialize-first":
        send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "x"}})
    if VERSION == 1:
        caps = {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True,
                "session": {"notices": {}}}
        if BROKEN == "bad-capabilities":
            caps["fs"]["readTextFile"] = "yes"
        params = {"protocolVersion": 1, "clientCapabilities": caps,
                  "clientInfo": {"name": "script-client", "version": "0"}}
    else:
        params = {"protocolVersion": 2, "info": {"name": "script-client", "version": "0"},
                  "capabilities": {"auth": "none" if BROKEN == "bad-capabilities" else {}}}
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})


def answer(message):
    """The answer to one request of the agent."""
    global deaf
    method, rid, params = message["method"], message["id"], message.get("params") or {}
    if BROKEN == "stringify-ids":
        rid = str(rid)
    if method == "session/request_permission":
        if BROKEN == "cancel-as-request":
            send({"jsonrpc": "2.0", "id": 90, "method": "session/cancel",
                  "params": {"sessionId": session}})
        if BROKEN == "cancel":
            send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}})
            return {"jsonrpc": "2.0", "id": rid, "result": {"outcome": {"outcome": "cancelled"}}}
        option = "nope" if BROKEN == "bad-permission" else params["options"][0]["optionId"]
        outcome = {"outcome": "selected", "optionId": option}
        return {"jsonrpc": "2.0", "id": rid, "result": {"outcome": outcome}}
    if method == "fs/read_text_file":
        if BROKEN == "bad-read":
            return {"jsonrpc": "2.0", "id": rid, "result": {"content": 42}}
        with open(params["path"]) as f:
            return {"jsonrpc": "2.0", "id": rid, "result": {"content": f.read()}}
    if method == "fs/write_text_file":
        if BROKEN == "bad-write":
            return {"jsonrpc": "2.0", "id": rid, "result": "written"}
        with open(params["path"], "w") as f:
            f.write(params["content"])
        return {"jsonrpc": "2.0", "id": rid, "result": {}}
    if method.startswith("terminal/"):
        return terminal(method, rid, params)
    if BROKEN == "answers-probe-ok":
        return {"jsonrpc": "2.0", "id": rid, "result": {}}
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "method not found"}}


def terminal(method, rid, params):
    """Terminals: the command is run at once, its output kept until released."""
    if method == "terminal/create":
        run = subprocess.run([params["command"]] + params.get("args", []),
                             capture_output=True, text=True, check=False)
        terminals["t1"] = (run.stdout, run.returncode)
        return {"jsonrpc": "2.0", "id": rid, "result": {"terminalId": "t1"}}
    tid = params.get("terminalId")
    if tid not in terminals:
        if BROKEN == "reuses-released":
            return {"jsonrpc": "2.0", "id": rid, "result": {"output": "", "truncated": False}}
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no such terminal"}}
    output, code = terminals[tid]
    if method == "terminal/output":
        result = {"output": 5 if BROKEN == "bad-terminal" else output, "truncated": False,
                  "exitStatus": {"exitCode": code, "signal": None}}
    elif method == "terminal/wait_for_exit":
        result = {"exitCode": code, "signal": None}
    elif method == "terminal/release":
        del terminals[tid]
        result = {}
    else:
        result = {}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def on_notification(message):
    global deaf
    update = (message.get("params") or {}).get("update") or {}
    kind = update.get("sessionUpdate")
    if kind == "notice":
        if BROKEN == "acks-notices":
            send({"jsonrpc": "2.0", "id": None, "result": {}})
        if BROKEN == "dies-on-unknown-severity" and update.get("severity") == "critical":
            deaf = True
        if BROKEN == "dies-on-replayed-notice" and "replay" in update.get("title", ""):
            deaf = True
    elif kind == "tool_call" and BROKEN == "dies-on-diff":
        if any(c.get("type") == "diff" for c in update.get("content") or []):
            deaf = True
    elif kind == "state_update" and update.get("state") == "idle":
        sys.exit(0)
    elif kind not in (None, "agent_message_chunk", "state_update", "tool_call",
                      "tool_call_update") and BROKEN == "dies-on-unknown-kind":
        deaf = True


def on_response(message):
    global session
    if message.get("id") == 1 and LOADS:
        session = "conform-session-earlier"
        send({"jsonrpc": "2.0", "id": 2, "method": "session/load",
              "params": {"sessionId": session, "cwd": "/", "mcpServers": []}})
    elif message.get("id") == 1:
        send({"jsonrpc": "2.0", "id": 2, "method": "session/new",
              "params": {"cwd": "/", "mcpServers": []}})
    elif message.get("id") == 2:
        if not LOADS:
            session = message["result"]["sessionId"]
        prompt = "hello" if BROKEN == "bad-prompt" else [{"type": "text", "text": "hello"}]
        send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
              "params": {"sessionId": session, "prompt": prompt}})
    elif message.get("id") == 3 and VERSION == 1:
        sys.exit(0)


def main():
    global deaf
    initialize()
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            if BROKEN == "dies-on-bad-line":
                deaf = True
            continue
        if "method" in message and "id" in message:
            if not deaf:
                send(answer(message))
        elif "method" in message:
            on_notification(message)
        else:
            on_response(message)


main()
