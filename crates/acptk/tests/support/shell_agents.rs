//! Agents written in `sh` for the proxy's tests: one that streams without end, one that sends a
//! notice in every turn; `acp proxy` in front of the first. Include it with `#[path = "support/shell_agents.rs"] mod shell_agents;`.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::Path;
use std::process::{Child, Command, Stdio};

/// An agent that writes its pid and a grandchild's pid to `$1`, then streams numbered
/// `agent_message_chunk` updates forever, whatever happens to its input.
pub const STREAMING_AGENT: &str = r#"echo $$ > "$1"; sleep 300 & echo $! >> "$1"
i=0
while :; do
  i=$((i+1))
  printf '%s%d%s\n' '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"' "$i" '"}}}}'
done"#;

/// A v1 agent that sends a notice in every turn, whatever the client advertised (the
/// proxy's repair has to step in for a client without `session.notices`).
pub const NOTICING_AGENT: &str = r#"while IFS= read -r line; do
  id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
  case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentInfo":{"name":"noticing","version":"0"}}}\n' "$id" ;;
    *'"method":"session/new"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"s1"}}\n' "$id" ;;
    *'"method":"session/prompt"'*)
      printf '%s\n' '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"warning","title":"Disk almost full","description":"95% used"}}}'
      printf '{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}\n' "$id" ;;
  esac
done"#;

/// `acp proxy FLAG --grace-period 0.3 -- sh -c STREAMING_AGENT sh PIDS`, its standard input and
/// output piped, its standard error discarded.
pub fn streaming_proxy(flag: &str, pids: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_acp"))
        .args(["proxy", flag, "--grace-period", "0.3", "--"])
        .args(["sh", "-c", STREAMING_AGENT, "sh"])
        .arg(pids)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}
