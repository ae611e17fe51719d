#!/usr/bin/env bash
# The whole test suite: every crate with all features (doc tests included), then the crates whose
# behaviour depends on cargo features under each combination that matters (library and
# integration tests only; the doc tests already ran).
set -euo pipefail
cd "$(dirname "$0")/.."

# Unattended (no terminal on standard input, as in CI), a test that hangs ends the run after
# this many minutes (the build and the whole workspace suite take about 15 on two cores); the
# output names it, as libtest prints "has been running for over 60 seconds". Without a limit a
# hang holds CI until its own cutoff and says nothing. `timeout` ends its whole process group:
# cargo, the test binaries and what they started. On a terminal there is no limit, as that
# process group would not get the terminal's Ctrl-C.
limit="${ACP_TEST_TIMEOUT_MINUTES:-40}"
status=0
if [ -t 0 ]; then
  cargo test --workspace --all-features --locked || status=$?
else
  timeout --kill-after=30s "${limit}m" cargo test --workspace --all-features --locked || status=$?
fi
if [ "${status}" != 0 ]; then
  if [ "${status}" = 124 ] || [ "${status}" = 137 ]; then
    echo "the workspace tests did not end within ${limit} minutes (ACP_TEST_TIMEOUT_MINUTES):" \
      "look above for a test that has been running for over 60 seconds" >&2
  fi
  exit "${status}"
fi

echo "== acptk-runtime's session stores without the database features =="
cargo test -p acptk-runtime --locked --test stores --test file_store
echo "== acptk-notice-center, default features and none =="
cargo test -p acptk-notice-center --locked --lib --tests
cargo test -p acptk-notice-center --locked --lib --tests --no-default-features
echo "== acptk-check without its proxy core (no default features) =="
cargo test -p acptk-check --locked --lib --tests --no-default-features
for features in "" "unstable_protocol_v2" "unstable"; do
  echo "== acptk-schema, default features + [${features}] =="
  cargo test -p acptk-schema --locked --lib --tests --features "${features}"
done
echo "== acptk-schema, no default features =="
cargo test -p acptk-schema --locked --lib --tests --no-default-features --features unstable_protocol_v2
cargo test -p acptk-schema --locked --lib --tests --no-default-features
# Session notices are stable and always built; the feature that once gated them stays, empty,
# for manifests that name it. It must still build and change nothing: no code may test for it,
# and with it the stable schemas (every type and variant compiled in) are the checked-in ones.
echo "== acptk-schema, the old feature unstable_session_notices (empty, a no-op) =="
if ! grep -qx 'unstable_session_notices = \[\]' crates/acptk-schema/Cargo.toml ||
  grep -rn --include='*.rs' 'feature = "unstable_session_notices"' crates fuzz; then
  echo "unstable_session_notices must stay an empty feature that no code tests for" >&2
  exit 1
fi
cargo test -p acptk-schema --locked --features unstable_session_notices,unstable_protocol_v2 \
  --test schema_artifacts --test schema_reference --test notices

# Each of the official crate's unstable features alone, with v2 so that both versions' parts
# are built: the names are those the `unstable` umbrella of crates/acptk-schema/Cargo.toml lists.
# To keep CI lean these builds leave out the default `schemars` feature (the JSON Schema code
# of every feature was built and checked above, with all of them on) and run only the
# integration tests whose cases depend on the features: the method tables against the
# reference lists, the unstable methods and updates, the session update corpus, and the
# encoders of the hot types against serde (whose unions gain variants with the features).
features=$(awk '/^unstable = \[/ { listing = 1; next } listing && /\]/ { exit }
  listing { gsub(/[",[:space:]]/, ""); if ($0 != "") print }' \
  crates/acptk-schema/Cargo.toml)
if [ -z "${features}" ]; then
  echo "no unstable features found in crates/acptk-schema/Cargo.toml" >&2
  exit 1
fi
# Each of these builds is used once, so its own outputs (the acptk-schema library and the five
# test binaries) are removed after its run: kept, the fourteen builds would take gigabytes of a
# disk that CI shares with everything else. The dependencies they share stay. Set
# ACP_TEST_KEEP_BUILDS=1 to keep them (a second run is then quicker).
tests=(methods unstable_methods unstable_updates session_updates encode)
target_dir=$(cargo metadata --format-version 1 --no-deps --locked |
  sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
if [ -z "${target_dir}" ] || [ ! -d "${target_dir}/debug" ]; then
  echo "could not find cargo's target directory (cargo metadata: target_directory)" >&2
  exit 1
fi
marker=$(mktemp)
trap 'rm -f "${marker}"' EXIT
started=${SECONDS}
for feature in ${features}; do
  echo "== acptk-schema, unstable_protocol_v2 + ${feature} alone =="
  touch "${marker}"
  cargo test -p acptk-schema --locked --no-default-features \
    --features "unstable_protocol_v2,${feature}" "${tests[@]/#/--test=}"
  if [ "${ACP_TEST_KEEP_BUILDS:-0}" != 1 ]; then
    for name in libacptk_schema acptk_schema "${tests[@]}"; do
      find "${target_dir}/debug/deps" -maxdepth 1 -name "${name}-*" -newer "${marker}" -delete
    done
    find "${target_dir}/debug/.fingerprint" -mindepth 1 -maxdepth 1 -name "acptk-schema-*" \
      -newer "${marker}" -exec rm -rf {} +
  fi
done
echo "== each unstable feature alone: $((SECONDS - started)) s =="
