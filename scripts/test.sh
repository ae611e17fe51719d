#!/usr/bin/env bash
# The whole test suite: every crate with all features, then acp-schema under each feature
# combination that changes its behaviour (default, notices only, v2 only, both, none).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace --all-features --locked
for features in "" "unstable_session_notices" "unstable_protocol_v2" \
  "unstable_session_notices,unstable_protocol_v2"; do
  echo "== acp-schema, default features + [${features}] =="
  cargo test -p acp-schema --locked --features "${features}"
done
echo "== acp-schema, no default features =="
cargo test -p acp-schema --locked --no-default-features --features unstable_session_notices,unstable_protocol_v2
cargo test -p acp-schema --locked --no-default-features
