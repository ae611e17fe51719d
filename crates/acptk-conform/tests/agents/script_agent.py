#!/usr/bin/env python3
"""A small ACP agent for the conformance tests, v1 and v2, that keeps every requirement of
`acp conform agent` unless told to break one: `script_agent.py BREAK` (see BREAKS below).

It speaks line-delimited JSON-RPC on standard input/output and needs only the standard library.
"""
import json
import select
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
    "caps-lie",            # session/list (advertised in v1, baseline in v2) answers -32601
    "unadvertised-answered",  # v2 session/delete, not advertised, answered as done
    "list-missing",        # session/list leaves out the sessions made
    "close-error",         # session/close of a session made answers -32603
    "delete-error",        # session/delete of a session made answers -32603
    "stop-reason",         # v1 stop reason "done"
    "cancel-ignored",      # a cancelled turn ends with end_turn
    "cancel-tools-open",   # a cancelled turn leaves its tool call pending
    "tool-id-reuse",       # two tool_call updates with the same id in one turn
    "tool-id-reload",      # the tool call counter starts again when a session is reloaded
    "cancel-streaming-ignored",  # a cancel while the answer streams ends the turn end_turn
    "fork-same-id",        # session/fork answers the id of the session it forks
    "reject-error",        # a rejected permission: v1 an error response, v2 no idle update
    "fs-request",          # fs/read_text_file to a client that did not advertise fs
    "needs-auth",          # not a break: session/new answers -32000 (authentication required)
}

BREAK = sys.argv[1] if len(sys.argv) > 1 else "none"
if BREAK not in BREAKS:
    sys.exit("unknown break " + BREAK)

state = {"version": 1, "notices": False, "sessions": set(), "made": 0, "calls": 0, "tools": 0}


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
                "sessionCapabilities": {"resume": {}, "list": {}, "close": {}, "delete": {}, "fork": {}},
            },
            "authMethods": [{"id": "token", "name": 5 if BREAK == "auth-methods" else "Token"}],
        }
    else:
        result = {
            "protocolVersion": answered,
            "info": {"name": "script-agent", "version": "1.0.0"},
            "capabilities": {"session": "yes" if BREAK == "caps-types" else {"fork": {}}},
            "authMethods": [{"type": "agent", "methodId": "token", "name": 5 if BREAK == "auth-methods" else "Token"}],
        }
    reply(id_, result)


def tool(session, call, status, first=False):
    kind = "tool_call" if first and state["version"] == 1 else "tool_call_update"
    body = {"sessionUpdate": kind, "toolCallId": call, "status": status}
    if first:
        body["title"] = "Count the words"
    update(session, body)


def read_message():
    """The next JSON object from the client, or None at the end of the input."""
    while True:
        line = sys.stdin.readline()
        if not line:
            return None
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}})
            continue
        if isinstance(message, dict):
            return message


def ask_permission(session, call):
    """Asks permission for `call`; returns the outcome ("allow", "reject", "cancelled")."""
    state["calls"] += 1
    request = "perm-%d" % state["calls"]
    send({"jsonrpc": "2.0", "id": request, "method": "session/request_permission", "params": {
        "sessionId": session,
        "toolCall": {"toolCallId": call},
        "title": "Count the words",
        "options": [
            {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
            {"optionId": "no", "name": "Reject", "kind": "reject_once"},
        ],
    }})
    cancelled = False
    while True:
        message = read_message()
        if message is None:
            sys.exit(0)
        if message.get("id") == request and "method" not in message:
            outcome = (message.get("result") or {}).get("outcome") or {}
            if cancelled or outcome.get("outcome") != "selected":
                return "cancelled"
            return "allow" if outcome.get("optionId") == "yes" else "reject"
        if message.get("method") == "session/cancel" and (message.get("params") or {}).get("sessionId") == session:
            cancelled = True
            continue
        handle(message)


def interrupted(session):
    """Whether a session/cancel of `session` comes within a short wait (as if the answer were
    still streaming); anything else that comes is handled."""
    readable, _, _ = select.select([sys.stdin], [], [], 0.15)
    if not readable:
        return False
    message = read_message()
    if message is None:
        sys.exit(0)
    if message.get("method") == "session/cancel" and (message.get("params") or {}).get("sessionId") == session:
        return True
    handle(message)
    return False


def end_turn(id_, session, stop):
    if state["version"] == 1:
        reply(id_, {} if BREAK == "prompt-stop" else {"stopReason": stop})
    elif BREAK != "prompt-stop":
        update(session, {"sessionUpdate": "state_update", "state": "idle", "stopReason": stop})


def prompt(id_, params):
    session = params.get("sessionId")
    if session not in state["sessions"]:
        return reply(id_, error=-32002)
    if state["version"] == 2:
        reply(id_, {"messageId": "m1"})
    if may_send_notices():
        notice(session, "" if BREAK == "notice-malformed" else "Index is stale")
    chunk(session)
    if interrupted(session):
        return end_turn(id_, session, "end_turn" if BREAK == "cancel-streaming-ignored" else "cancelled")
    state["tools"] += 1
    call = "call-%d" % state["tools"]
    tool(session, call, "pending", first=True)
    if BREAK == "tool-id-reuse":
        tool(session, call, "pending", first=True)
    if BREAK == "fs-request":
        send({"jsonrpc": "2.0", "id": "fs-1", "method": "fs/read_text_file", "params": {"sessionId": session, "path": "/etc/hostname"}})
    outcome = ask_permission(session, call)
    if outcome == "cancelled":
        if BREAK != "cancel-tools-open":
            tool(session, call, "failed")
        return end_turn(id_, session, "end_turn" if BREAK == "cancel-ignored" else "cancelled")
    if outcome == "reject":
        tool(session, call, "failed")
        if BREAK == "reject-error":
            return reply(id_, error=-32603) if state["version"] == 1 else None
        return end_turn(id_, session, "end_turn")
    tool(session, call, "completed")
    end_turn(id_, session, "done" if BREAK == "stop-reason" else "end_turn")


def replay(id_, params):
    session = params.get("sessionId")
    if session not in state["sessions"]:
        return reply(id_, error=-32603 if BREAK == "unknown-id" else -32002)
    if BREAK == "tool-id-reload":
        state["tools"] = 0
    if BREAK == "replay-notice":
        notice(session, "Replayed notice")
    chunk(session)
    reply(id_, {})


def close_or_delete(id_, params, broken, forget):
    session = params.get("sessionId")
    if session not in state["sessions"]:
        if BREAK == "unadvertised-answered":
            return reply(id_, {})
        return reply(id_, error=-32002)
    if broken:
        return reply(id_, error=-32603)
    if forget:
        state["sessions"].discard(session)
    reply(id_, {})


def handle(message):
    method = message.get("method")
    params = message.get("params") or {}
    if method is None:
        return  # a response to one of our requests
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
        state["made"] += 1
        session = "s%d" % state["made"]
        state["sessions"].add(session)
        return reply(id_, {"id": session} if BREAK == "session-new" else {"sessionId": session})
    if method == "session/prompt":
        return prompt(id_, params)
    if method == "session/fork":
        source = params.get("sessionId")
        if source not in state["sessions"]:
            return reply(id_, error=-32002)
        if BREAK == "fork-same-id":
            return reply(id_, {"sessionId": source})
        state["made"] += 1
        forked = "s%d" % state["made"]
        state["sessions"].add(forked)
        return reply(id_, {"sessionId": forked})
    if method in ("session/load", "session/resume"):
        return replay(id_, params)
    if method == "session/list" and BREAK != "caps-lie":
        listed = [] if BREAK == "list-missing" else sorted(state["sessions"])
        return reply(id_, {"sessions": [{"sessionId": s, "cwd": "/"} for s in listed]})
    if method == "session/delete" and (state["version"] == 1 or BREAK == "unadvertised-answered"):
        return close_or_delete(id_, params, BREAK == "delete-error", forget=True)
    if method == "session/close":
        return close_or_delete(id_, params, BREAK == "close-error", forget=False)
    reply(id_, error=-32603 if BREAK == "method-not-found" else -32601)


while True:
    line = sys.stdin.readline()
    if not line:
        break
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
