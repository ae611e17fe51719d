#!/bin/sh
# A scripted ACP v1 agent for the client's process tests: it answers the client's requests
# with canned lines, and misbehaves on purpose in some modes. Every line it receives is
# appended to $ACP_TEST_LOG (default: nowhere), and its pid to $ACP_TEST_DIR/agent.pids.
#
#   scripted.sh MODE
#
# MODE: ok, garbage, huge, exit-mid-turn, silent, auth, auth-terminal, grandchild, v1only,
# cancel, fs, load, hostile (asks to run commands that leave marker files), setsid (runs a
# command that starts a `setsid` child, whose pid goes to $ACP_TEST_DIR/setsid.pid),
# auth-prompt (the prompt fails with -32000), perm (asks two permissions: a read, an edit),
# perm-tool (announces a tool call, asks permission for it, then at once completes it and
# says a message),
# junk (writes lines that are not JSON before its answers), rich (a turn with Markdown, a
# thought, a diff and a terminal), restart (keeps its prompts in $ACP_TEST_DIR/store, replays
# them on session/load, and exits with 7 on the prompt `die`).
# `scripted.sh auth-terminal login` is the login run of the terminal method; in mode
# auth-hang the login waits (for Ctrl-C) and the sessions are always refused.
mode="$1"
log="${ACP_TEST_LOG:-/dev/null}"
# Every agent process of a run leaves its pid, so that tests can check it is gone.
if [ -n "$ACP_TEST_DIR" ]; then echo $$ >> "$ACP_TEST_DIR/agent.pids"; fi
# A line on standard error first, when asked for.
if [ -n "$ACP_TEST_STDERR" ]; then echo "$ACP_TEST_STDERR" >&2; fi

reply() { printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$1" "$2"; }
fail() { printf '{"jsonrpc":"2.0","id":%s,"error":%s}\n' "$1" "$2"; }
update() {
  printf '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":%s}}\n' "$1"
}
# Sends a request and logs the answer (the next line from the client).
ask() {
  printf '{"jsonrpc":"2.0","id":%s,"method":"%s","params":%s}\n' "$1" "$2" "$3"
  IFS= read -r answer
  printf 'ANSWER %s\n' "$answer" >> "$log"
}

init='{"protocolVersion":1,"agentInfo":{"name":"scripted","version":"0"}}'
if [ "$mode" = auth ] || [ "$mode" = auth-prompt ]; then
  init='{"protocolVersion":1,"authMethods":[{"id":"browser","name":"Sign in with a browser","description":"Opens a browser"},{"type":"env_var","id":"api-key","name":"Use API_KEY","vars":[{"name":"API_KEY"}]}]}'
fi
if [ "$mode" = auth-terminal ] && [ "$2" = login ]; then
  echo "Logging in for the test..."
  touch "$ACP_TEST_DIR/logged-in"
  exit 0
fi
if [ "$mode" = auth-hang ] && [ "$2" = login ]; then
  echo $$ > "$ACP_TEST_DIR/login.pid"
  echo "Waiting for the login..."
  exec sleep 30
fi
if [ "$mode" = auth-terminal ] || [ "$mode" = auth-hang ]; then
  init='{"protocolVersion":1,"authMethods":[{"type":"terminal","id":"tui","name":"Log in here","args":["login"]}]}'
fi
if [ "$mode" = load ] || [ "$mode" = restart ]; then
  init='{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}'
fi
if [ "$mode" = grandchild ]; then
  # A helper that ignores SIGTERM and whose input is not ours; the agent ignores SIGTERM too.
  (trap '' TERM; exec sleep 300) </dev/null >/dev/null 2>&1 &
  echo $! > "$ACP_TEST_PIDFILE"
  trap '' TERM
fi
signed_in=no

while IFS= read -r line; do
  printf '%s\n' "$line" >> "$log"
  id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
  method=$(printf '%s\n' "$line" | sed -n 's/.*"method":"\([^"]*\)".*/\1/p')
  case "$mode:$method" in
    garbage:initialize)
      echo 'this is not JSON'
      echo '{"jsonrpc":"2.0","id":"x"'
      printf '\377\376 binary\n'
      exit 3 ;;
    huge:initialize)
      head -c 17000000 /dev/zero | tr '\0' 'a'
      echo
      exit 0 ;;
    junk:initialize)
      echo 'Please visit https://example.invalid/login to sign in'
      echo 'Enter the authorization code:'
      reply "$id" "$init" ;;
    *:initialize) reply "$id" "$init" ;;
    auth:authenticate|auth-prompt:authenticate)
      # The env_var method needs API_KEY in the agent's environment.
      case "$line" in
        *'"methodId":"api-key"'*)
          if [ -z "$API_KEY" ]; then
            fail "$id" '{"code":-32000,"message":"API_KEY is not set"}'
            continue
          fi
          echo "API_KEY has $(printf %s "$API_KEY" | wc -c) characters" >> "$log" ;;
      esac
      signed_in=yes
      reply "$id" '{}' ;;
    auth:session/new)
      if [ "$signed_in" = yes ]; then
        reply "$id" '{"sessionId":"s1"}'
      else
        fail "$id" '{"code":-32000,"message":"Authentication required"}'
      fi ;;
    auth-terminal:session/new)
      if [ -f "$ACP_TEST_DIR/logged-in" ]; then
        reply "$id" '{"sessionId":"s1"}'
      else
        fail "$id" '{"code":-32000,"message":"Authentication required"}'
      fi ;;
    auth-hang:session/new)
      fail "$id" '{"code":-32000,"message":"Authentication required"}' ;;
    *:session/new) reply "$id" '{"sessionId":"s1"}' ;;
    load:session/load)
      # The history, with a notice in it (a protocol violation the client must not show).
      update '{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"old question"}}'
      update '{"sessionUpdate":"notice","severity":"warning","title":"Stale notice"}'
      update '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"old answer"}}'
      reply "$id" '{}' ;;
    restart:session/prompt)
      text=$(printf '%s\n' "$line" | sed -n 's/.*"text":"\([^"]*\)".*/\1/p')
      echo "$text" >> "$ACP_TEST_DIR/store"
      if [ "$text" = die ]; then
        echo "dying on purpose" >&2
        exit 7
      fi
      update "{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"Done: $text\"}}"
      reply "$id" '{"stopReason":"end_turn"}' ;;
    restart:session/load)
      while IFS= read -r old; do
        update "{\"sessionUpdate\":\"user_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"$old\"}}"
      done < "$ACP_TEST_DIR/store"
      reply "$id" '{}' ;;
    exit-mid-turn:session/prompt)
      update '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Working on it"}}'
      exit 1 ;;
    silent:session/prompt) ;;
    cancel:session/prompt) prompt_id="$id" ;;
    cancel:session/cancel)
      reply "$prompt_id" '{"stopReason":"cancelled"}' ;;
    fs:session/prompt)
      ask 100 fs/read_text_file "{\"sessionId\":\"s1\",\"path\":\"$ACP_TEST_DIR/in.txt\",\"line\":2,\"limit\":1}"
      ask 101 fs/write_text_file "{\"sessionId\":\"s1\",\"path\":\"$ACP_TEST_DIR/out.txt\",\"content\":\"written by the agent\"}"
      ask 102 fs/read_text_file "{\"sessionId\":\"s1\",\"path\":\"/etc/passwd\"}"
      ask 103 terminal/create "{\"sessionId\":\"s1\",\"command\":\"sh\",\"args\":[\"-c\",\"echo from the terminal; exit 4\"]}"
      ask 104 terminal/wait_for_exit '{"sessionId":"s1","terminalId":"term_1"}'
      ask 105 terminal/release '{"sessionId":"s1","terminalId":"term_1"}'
      reply "$id" '{"stopReason":"end_turn"}' ;;
    auth-prompt:session/prompt)
      fail "$id" '{"code":-32000,"message":"Authentication required","data":{"message":"Log in first"}}' ;;
    perm:session/prompt)
      ask 400 session/request_permission '{"sessionId":"s1","toolCall":{"toolCallId":"c1","title":"Read notes.txt","kind":"read"},"options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}'
      ask 401 session/request_permission '{"sessionId":"s1","toolCall":{"toolCallId":"c2","title":"Edit main.rs","kind":"edit"},"options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}'
      reply "$id" '{"stopReason":"end_turn"}' ;;
    perm-tool:session/prompt)
      update '{"sessionUpdate":"tool_call","toolCallId":"w1","title":"Write the report","kind":"edit","status":"pending"}'
      ask 402 session/request_permission '{"sessionId":"s1","toolCall":{"toolCallId":"w1","title":"Write the report"},"options":[{"optionId":"yes","name":"Yes, write it","kind":"allow_once"},{"optionId":"no","name":"No","kind":"reject_once"}]}'
      update '{"sessionUpdate":"tool_call_update","toolCallId":"w1","status":"completed","content":[{"type":"content","content":{"type":"text","text":"report.md written"}}]}'
      update '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"The report is ready."}}'
      reply "$id" '{"stopReason":"end_turn"}' ;;
    junk:session/new)
      echo 'not JSON either {'
      reply "$id" '{"sessionId":"s1"}' ;;
    junk:session/prompt)
      echo 'still no JSON'
      update '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Done."}}'
      reply "$id" '{"stopReason":"end_turn"}' ;;
    hostile:session/prompt)
      ask 200 terminal/create "{\"sessionId\":\"s1\",\"command\":\"sh\",\"args\":[\"-c\",\"touch $ACP_TEST_DIR/marker\"],\"env\":[{\"name\":\"SECRET\",\"value\":\"x\"}]}"
      ask 201 terminal/wait_for_exit '{"sessionId":"s1","terminalId":"term_1"}'
      ask 202 terminal/create "{\"sessionId\":\"s1\",\"command\":\"sh\",\"args\":[\"-c\",\"touch $ACP_TEST_DIR/marker-root\"],\"cwd\":\"/\"}"
      reply "$id" '{"stopReason":"end_turn"}' ;;
    setsid:session/prompt)
      ask 300 terminal/create "{\"sessionId\":\"s1\",\"command\":\"sh\",\"args\":[\"-c\",\"setsid sh -c 'echo \$\$ > $ACP_TEST_DIR/setsid.pid; exec sleep 300' </dev/null >/dev/null 2>&1 & sleep 0.3\"]}"
      ask 301 terminal/wait_for_exit '{"sessionId":"s1","terminalId":"term_1"}'
      reply "$id" '{"stopReason":"end_turn"}' ;;
    rich:session/prompt)
      update '{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"Planning: **read** the file, then edit it."}}'
      update '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"# The plan\n\nI will *edit* `main.rs`:\n\n- read it\n- change **one** line\n\n```rust\nfn main() {}\n```\n\nSee [the docs](https://example.org/docs) \u001b]52;c;aGk=\u0007and &#27;[2J done."}}'
      ask 103 terminal/create "{\"sessionId\":\"s1\",\"command\":\"sh\",\"args\":[\"-c\",\"i=1; while [ \$i -le 12 ]; do echo output line \$i; i=\$((i+1)); done; exit 2\"]}"
      ask 104 terminal/wait_for_exit '{"sessionId":"s1","terminalId":"term_1"}'
      update '{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Edit main.rs","status":"completed","content":[{"type":"diff","path":"/work/main.rs","oldText":"fn main() {\n    old();\n}\n","newText":"fn main() {\n    new();\n}\n"},{"type":"terminal","terminalId":"term_1"}]}'
      ask 105 terminal/release '{"sessionId":"s1","terminalId":"term_1"}'
      reply "$id" '{"stopReason":"end_turn"}' ;;
    *:session/prompt)
      update '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Done."}}'
      reply "$id" '{"stopReason":"end_turn"}' ;;
    *)
      if [ -n "$id" ]; then
        fail "$id" '{"code":-32601,"message":"Method not found"}'
      fi ;;
  esac
done

if [ "$mode" = grandchild ]; then
  # Ignore the end of the input too: only a signal it cannot ignore ends it.
  while :; do sleep 1; done
fi
