#!/usr/bin/env python3
"""A small ACP agent for the conformance tests, v1 and v2, that keeps every requirement of
`acp conform agent` unless told to break one: `script_agent.py BREAK` (see BREAKS below).

It speaks line-delimited JSON-RPC on standard input/output and needs only the standard library.
"""
import json
import sys

BREAKS = {
    "none",
    "version-type",        # protocolVersion answered as a string
    "echo-version",        # any proposal echoed back, 99 and 0 included
    "caps-types",          # loadSession is a string
    "auth-methods",        # an auth method without a string name
    "parse-crash",         # exits on a line that is not JSON
    "parse-silent",        # says nothing to a line that is not JSON
    "method-not-found",    # unknown methods get -32603
    "invalid-params",      # wrong params to session/new get -32603
    "id-string",           # string ids answered as their length
    "id-number",           # large number ids answered as floats
    "answer-notifications",  # notifications get an error with a null id
    "session-new",         # session/new answers without sessionId
    "prompt-stop",         # no stop reason (v1), no idle state update (v2)
    "unknown-id",          # load/resume of an unknown session: another code than prompt
    "replay-notice",       # a notice inside the replay of load/resume
    "notice-gate",         # notices to a v1 client that did not ask for them
    "notice-malformed",    # a notice with an empty title
    "needs-auth",          # not a break: session/new answers -32000 (authentication required)
}

BREAK = sys.argv[1] if len(sys.argv) > 1 else "none"
if BREAK not in BREAKS:
    sys.exit("unknown break " + BREAK)

state = {"version": 1, "notices": False, "sessions": set()}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def reply(id_, result=None, error=None):
    if BREAK == "id-string" and isinstance(id_, str):
        id_ = len(id_)
    elif BREAK == "id-number" and isinstance(id_, int) and not isinstance(id_, bool) and id_ > 2**40:
        id_ = float(id_)
    message = {"jsonrpc": "2.0", "id": id_}
    if error is not None:
        message["error"] = {"code": error, "message": "error %d" % error}
    else:
        message["result"] = result if result is not None else {}
    send(message)


def chunk(session):
    body = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hi."}}
    if state["version"] == 2:
        body["messageId"] = "m0"
    update(session, body)


def update(session, body):
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": body}})


def notice(session, title="Index is stale"):
    update(session, {"sessionUpdate": "notice", "severity": "warning", "title": title, "description": None})


def may_send_notices():
    return state["version"] == 2 or state["notices"] or BREAK == "notice-gate"


def initialize(id_, params):
    proposal = params.get("protocolVersion")
    if BREAK == "echo-version":
        version = proposal
    elif proposal == 0 and "info" in params:
        # v2: no supported version at or below the proposal.
        return send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32022, "message": "unsupported", "data": {"requested": 0, "supported": [1, 2]}}})
    else:
        version = proposal if proposal in (1, 2) else 2
    state["version"] = version if version in (1, 2) else 2
    caps = params.get("clientCapabilities") or {}
    state["notices"] = isinstance((caps.get("session") or {}).get("notices"), dict)
    answered = str(version) if BREAK == "version-type" else version
    if state["version"] == 1:
        result = {
            "protocolVersion": answered,
            "agentCapabilities": {
                "loadSession": "yes" if BREAK == "caps-types" else True,
                "promptCapabilities": {"image": False, "audio": False, "embeddedContext": False},
                "mcpCapabilities": {"http": False, "sse": False},
                "sessionCapabilities": {"resume": {}},
            },
            "authMethods": [{"id": "token", "name": 5 if BREAK == "auth-methods" else "Token"}],
        }
    else:
        result = {
            "protocolVersion": answered,
            "info": {"name": "script-agent", "version": "1.0.0"},
            "capabilities": {"session": "yes" if BREAK == "caps-types" else {}},
            "authMethods": [{"type": "agent", "methodId": "token", "name": 5 if BREAK == "auth-methods" else "Token"}],
        }
    reply(id_, result)


def prompt(id_, params):
    session = params.get("sessionId")
    if session not in state["sessions"]:
        return reply(id_, error=-32002)
    if may_send_notices():
        notice(session, "" if BREAK == "notice-malformed" else "Index is stale")
    chunk(session)
    if state["version"] == 1:
        reply(id_, {} if BREAK == "prompt-stop" else {"stopReason": "end_turn"})
    else:
        reply(id_, {"messageId": "m1"})
        if BREAK != "prompt-stop":
            update(session, {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})


def replay(id_, params):
    session = params.get("sessionId")
    if session not in state["sessions"]:
        return reply(id_, error=-32603 if BREAK == "unknown-id" else -32002)
    if BREAK == "replay-notice":
        notice(session, "Replayed notice")
    chunk(session)
    reply(id_, {})


def handle(message):
    method = message.get("method")
    params = message.get("params") or {}
    if "id" not in message:
        if BREAK == "answer-notifications":
            send({"jsonrpc": "2.0", "id": None, "error": {"code": -32601, "message": "answered"}})
        return
    id_ = message["id"]
    if method == "initialize":
        return initialize(id_, params)
    if method == "session/new":
        if not isinstance(params.get("cwd"), str):
            return reply(id_, error=-32603 if BREAK == "invalid-params" else -32602)
        if BREAK == "needs-auth":
            return reply(id_, error=-32000)
        session = "s%d" % (len(state["sessions"]) + 1)
        state["sessions"].add(session)
        return reply(id_, {"id": session} if BREAK == "session-new" else {"sessionId": session})
    if method == "session/prompt":
        return prompt(id_, params)
    if method in ("session/load", "session/resume"):
        return replay(id_, params)
    reply(id_, error=-32603 if BREAK == "method-not-found" else -32601)


for line in sys.stdin:
    if not line.strip():
        continue
    try:
        message = json.loads(line)
    except ValueError:
        if BREAK == "parse-crash":
            sys.exit(3)
        if BREAK != "parse-silent":
            send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
        continue
    if isinstance(message, dict):
        handle(message)
