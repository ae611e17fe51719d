#!/usr/bin/env bash
# The whole test suite: every crate with all features (doc tests included), then the crates whose
# behaviour depends on cargo features under each combination that matters (library and
# integration tests only; the doc tests already ran).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace --all-features --locked

echo "== acp-notice-center, default features and none =="
cargo test -p acp-notice-center --locked --lib --tests
cargo test -p acp-notice-center --locked --lib --tests --no-default-features
for features in "" "unstable_session_notices" "unstable_protocol_v2" \
  "unstable_session_notices,unstable_protocol_v2"; do
  echo "== acp-schema, default features + [${features}] =="
  cargo test -p acp-schema --locked --lib --tests --features "${features}"
done
echo "== acp-schema, no default features =="
cargo test -p acp-schema --locked --lib --tests --no-default-features --features unstable_session_notices,unstable_protocol_v2
cargo test -p acp-schema --locked --lib --tests --no-default-features
