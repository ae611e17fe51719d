#!/usr/bin/env bash
# Runs the side-by-side benchmarks of BENCHMARKS.md and prints one Markdown table of what they
# measured: each row a figure, its peer in the same run, and the ratio.
#
#   scripts/bench.sh                  every area, with the benchmarks' own defaults (long: an
#                                     hour or more on 2 cores; run it on a quiet machine)
#   scripts/bench.sh --quick          every area with small runs (a few minutes once built):
#                                     to see that each benchmark still runs and parses, not
#                                     figures for BENCHMARKS.md
#   scripts/bench.sh --only schema,notices   some areas only (names below)
#
# Areas: schema runtime stores proxy checker capture remote notices tui inspector client.
# Peers that need something installed run when it is there and are reported as skipped
# otherwise: PostgreSQL (ACP_TEST_POSTGRES_URL, else a durable throwaway cluster started and
# stopped here through scripts/test-postgres.sh), the TypeScript SDK server
# (scripts/interop-setup.sh, ACP_INTEROP_DIR), Chromium and chromedriver (/usr/bin), acpx
# (ACP_BENCH_ACPX=path of acpx's dist/cli.js, with hyperfine). Not run here, see BENCHMARKS.md
# for their commands: clean build times, callgrind counts, the memory-bound tests, fuzzing.
#
# Each benchmark's whole output goes to a log in ACP_BENCH_OUT (default
# target/bench-results/<UTC time>); the table is printed at the end and saved there as table.md.
set -uo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "${root}" || exit 1
target="${CARGO_TARGET_DIR:-${root}/target}"
export CARGO_TARGET_DIR="${target}"

quick=0
only="schema,runtime,stores,proxy,checker,capture,remote,notices,tui,inspector,client"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --only) only="${2:?--only needs a list of areas}"; shift ;;
    --only=*) only="${1#--only=}" ;;
    -h | --help) sed -n "2,21p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

wanted() { [[ ",${only}," == *",$1,"* ]]; }
areas="schema runtime stores proxy checker capture remote notices tui inspector client"
for area in ${only//,/ }; do
  [[ " ${areas} " == *" ${area} "* ]] || { echo "bench.sh: unknown area ${area} (areas: ${areas})" >&2; exit 2; }
done

out="${ACP_BENCH_OUT:-${target}/bench-results/$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "${out}"
results="${out}/results.tsv"
: >"${results}"

# One result row: area, what, figure, peer, ratio.
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"${results}"; }
skip() { row "$1" "$2" "skipped: $3" "" ""; }

# A PostgreSQL cluster this script started is stopped however the script ends.
postgres_started=""
cleanup() {
  if [[ -n "${postgres_started}" ]]; then
    ACP_TEST_POSTGRES_DIR="${postgres_started}" scripts/test-postgres.sh stop
    postgres_started=""
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# run AREA LOG COMMAND...: runs a benchmark, its stdout to LOG and its stderr to LOG.err (both
# also to the terminal); a failure becomes a row of the table.
run() {
  local area="$1" log="${out}/$2"
  shift 2
  echo "== ${area}: $*" >&2
  "$@" 2> >(tee "${log}.err" >&2) | tee "${log}"
  local status="${PIPESTATUS[0]}"
  if [[ "${status}" != 0 ]]; then
    row "${area}" "$*" "failed (exit ${status}): see ${log}.err" "" ""
    return 1
  fi
}

schema() {
  # The criterion part has no knob that shortens the summary; --quick skips criterion instead.
  local args=()
  [[ ${quick} == 1 ]] && args=(-- no-such-bench)
  run schema schema.log cargo bench -p acptk-conformance --bench session_updates "${args[@]}" || return
  awk 'BEGIN { OFS = "\t" }
    $1 ~ /^V[12]$/ && ($2 == "decode" || $2 == "encode") {
      print "schema", tolower($1) " " $2, $3 " MB/s", "official " $4 " MB/s", $7 " [" $8 "]"
    }' "${out}/schema.log" >>"${results}"
}

runtime_bench_build() {
  [[ -x "${target}/release/acptk-runtime-bench" && -n "${runtime_built:-}" ]] && return
  run runtime runtime-build.log cargo build --release \
    --manifest-path crates/acptk-conformance/runtime-bench/Cargo.toml || return
  runtime_built=1
}

runtime() {
  runtime_bench_build || return
  local args=(--runs 3)
  [[ ${quick} == 1 ]] && args=(--count 20000 --runs 1 --paced-count 1000)
  run runtime runtime.log "${target}/release/acptk-runtime-bench" "${args[@]}" || return
  awk 'BEGIN { OFS = "\t" }
    $1 == "in-memory" || $1 == "os-pipe" {
      if ($2 == "acptk-runtime") { ours[$1] = $3; paced[$1] = $6 }
      else if ($2 == "agent-client-protocol") { theirs[$1] = $4; tpaced[$1] = $7 }
      else if ($2 == "ratio") { r[$1] = $4; pr[$1] = $7 }
    }
    END {
      for (t in ours) {
        print "runtime", t ", msg/s", ours[t], "official " theirs[t], r[t]
        print "runtime", t ", paced notice p50", paced[t], "official " tpaced[t], pr[t]
      }
    }' "${out}/runtime.log" | sort >>"${results}"
}

stores() {
  runtime_bench_build || return
  local args=(store --updates 10000 --runs 3 --cluster) url="${ACP_TEST_POSTGRES_URL:-}"
  [[ ${quick} == 1 ]] && args=(store --updates 2000 --runs 1 --cluster --sessions 20 --per-session 20)
  if [[ -z "${url}" ]]; then
    # A cluster of its own (durable, as measured), so that no test's cluster is touched.
    local dir="${TMPDIR:-/tmp}/acp-bench-postgres" env
    if env="$(ACP_TEST_POSTGRES_DIR="${dir}" ACP_TEST_POSTGRES_DURABLE=1 \
      scripts/test-postgres.sh start 2>"${out}/postgres.err")"; then
      postgres_started="${dir}"
      url="${env#export ACP_TEST_POSTGRES_URL=}"
    else
      skip stores "PostgreSQL" "$(tail -n 1 "${out}/postgres.err")"
    fi
  fi
  [[ -n "${url}" ]] && args+=(--postgres "${url}")
  run stores stores.log "${target}/release/acptk-runtime-bench" "${args[@]}"
  cleanup
  awk 'BEGIN { OFS = "\t"; target["file"] = 10; target["sqlite"] = 20; target["postgres"] = 500 }
    ($1 == "memory" || $1 in target) && NF == 6 && $2 ~ /^[0-9.]+$/ {
      if ($1 in target)
        print "stores", $1 ", per recorded update in a turn", $3 " us", "target " target[$1] " us",
          sprintf("%.2fx", $3 / target[$1])
      print "stores", $1 ", session/load of the history", $6 " ms", "target 200 ms",
        sprintf("%.2fx", $6 / 200)
    }
    /^(file|sqlite|postgres) \(/ {
      name = substr($0, 1, index($0, ")")); sub(/^[^)]*\) +/, "")
      print "stores", "two instances, " name, $1 " s, " $2 " updates/s, p99 " $4 " ms", "", ""
    }' "${out}/stores.log" >>"${results}"
}

proxy() {
  if [[ ${quick} == 1 ]]; then
    export ACP_BENCH_ROUND_TRIPS=2000 ACP_BENCH_UPDATES=20000 ACP_BENCH_ROUNDS=3
  fi
  run proxy proxy.log cargo bench -p acptk --bench proxy_overhead
  unset ACP_BENCH_ROUND_TRIPS ACP_BENCH_UPDATES ACP_BENCH_ROUNDS
  [[ -s "${out}/proxy.log" ]] || return
  awk 'BEGIN { OFS = "\t" }
    $1 == "typed" || $1 == "raw" {
      print "proxy", $1 ", through the proxy", $4 " msg/s", "direct " $2 " msg/s", $6 " " $7
      print "proxy", $1 ", with --record", $8 " msg/s", "direct " $2 " msg/s", $10 " " $11
      print "proxy", $1 ", with --capture", $12 " msg/s", "direct " $2 " msg/s", $14 " " $15
    }
    $1 == "p99" {
      print "proxy", "added latency per message, p99 (proxy / record / capture)",
        $6 " / " $7 " / " $8, "direct round trip " $2, ""
    }' "${out}/proxy.log" >>"${results}"
}

checker() {
  [[ ${quick} == 1 ]] && export ACP_BENCH_UPDATES=20000
  run checker checker.log cargo bench -p acptk-check --bench checker
  unset ACP_BENCH_UPDATES
  awk 'BEGIN { OFS = "\t" }
    $1 ~ /^v[12]$/ && $2 == "checker" { c[$1] = $(NF - 1) }
    $1 ~ /^v[12]$/ && $2 == "typed" { t[$1] = $(NF - 1) }
    $1 ~ /^v[12]$/ && $2 == "json" { f[$1] = $(NF - 1) }
    END {
      for (v in c) {
        print "checker", v ", per message", c[v] " ns", "typed decode " t[v] " ns", sprintf("%.2fx", c[v] / t[v])
        print "checker", v ", per message", c[v] " ns", "JSON floor " f[v] " ns", sprintf("%.2fx", c[v] / f[v])
      }
    }' "${out}/checker.log" | sort >>"${results}"
}

capture() {
  if [[ ${quick} == 1 ]]; then
    export ACP_BENCH_FRAMES=20000 ACP_BENCH_ROUNDS=3 ACP_BENCH_SEARCH_FRAMES=50000
  fi
  run capture capture.log cargo bench -p acptk-inspect --bench store
  unset ACP_BENCH_FRAMES ACP_BENCH_ROUNDS ACP_BENCH_SEARCH_FRAMES
  awk 'BEGIN { OFS = "\t" }
    $1 == "+capture" { cap = $7; all = $10 }
    $1 == "+record" { rec = $7; recall = $10 }
    /^database size:/ { size = $3 " / " $11 " bytes"; frame = $16 " bytes" }
    /^search a rare phrase/ { rare = $(NF - 1) " ms" }
    /^a page of 200 frames/ { page = $(NF - 1) " ms" }
    END {
      if (cap != "") {
        print "capture", "forwarding-thread CPU added per frame", cap " ns", "--record " rec " ns",
          (rec + 0 > 0 ? sprintf("%.2fx", cap / rec) : "")
        print "capture", "process CPU added per frame", all " ns", "--record " recall " ns",
          (recall + 0 > 0 ? sprintf("%.2fx", all / recall) : "")
      }
      if (size != "") print "capture", "database per frame, without / with the search index", size,
        "frame " frame, ""
      if (rare != "") print "capture", "search a rare phrase, all captures", rare, "", ""
      if (page != "") print "capture", "a page of 200 frames", page, "", ""
    }' "${out}/capture.log" >>"${results}"
}

remote() {
  if [[ ${quick} == 1 ]]; then
    export ACP_BENCH_CONNECTIONS=50 ACP_BENCH_UPDATES=200 ACP_BENCH_RATES=5000 ACP_BENCH_SECONDS=2
  fi
  run remote remote.log cargo bench -p acptk-runtime --features remote --bench remote_load
  run remote remote-open.log cargo bench -p acptk-runtime --features remote --bench remote_load -- --open-loop
  unset ACP_BENCH_CONNECTIONS ACP_BENCH_UPDATES ACP_BENCH_RATES ACP_BENCH_SECONDS
  awk -F' *[|] *' 'BEGIN { OFS = "\t" }
    /^[|] [a-z-]+ [|]/ && $6 ~ /notices\/s/ { tp[$2] = $6 + 0; p50[$2] = $7 + 0; rss[$2] = $9 }
    /^[|] [a-z-]+ [|]/ && $4 ~ /^failed/ { print "remote", $2, $4, "", "" }
    /^typescript-websocket: skipped/ { sub(/^typescript-websocket: skipped: /, ""); ts = $0 }
    END {
      h = "streamable-http"; w = "websocket"; t = "typescript-websocket"
      if (h in tp && w in tp) {
        print "remote", "Streamable HTTP, burst throughput", tp[h] " notices/s", "WebSocket " tp[w], sprintf("%.2fx", tp[h] / tp[w])
        print "remote", "Streamable HTTP, burst p50 latency", p50[h] " ms", "WebSocket " p50[w] " ms", sprintf("%.2fx", p50[h] / p50[w])
      }
      if (t in tp) {
        for (x in tp) if (x != t)
          print "remote", x ", burst throughput", tp[x] " notices/s", "TypeScript SDK " tp[t], sprintf("%.2fx", tp[x] / tp[t])
        print "remote", "websocket, peak RSS", rss[w], "TypeScript SDK " rss[t], ""
      } else if (ts != "") print "remote", "TypeScript SDK server", "skipped: " ts, "", ""
    }' "${out}/remote.log" >>"${results}"
  awk -F' *[|] *' 'BEGIN { OFS = "\t" }
    /^[|] [a-z-]+ [|] [0-9]+ [|]/ { p99[$3, $2] = $7; ok[$3, $2] = $10; rates[$3] = 1 }
    END {
      for (r in rates) {
        ours = p99[r, "websocket"] " / " p99[r, "streamable-http"] " / " p99[r, "stdio-pipe"]
        peer = ((r, "typescript-websocket") in p99) ? "TypeScript SDK " p99[r, "typescript-websocket"] " (sustained: " ok[r, "typescript-websocket"] ")" : ""
        print "remote", "p99 at " r " notices/s offered (WebSocket / HTTP / stdio)", ours, peer, ""
      }
    }' "${out}/remote-open.log" | sort -t$'\t' -k2,2V >>"${results}"
}

notices() {
  run notices notices.log cargo bench -p acptk-notice-center --bench throughput || return
  awk 'BEGIN { OFS = "\t" }
    $2 == "notices" && $6 == "notices/s" { n = $1; rate = $5; heap = $9 }
    END {
      if (rate != "") {
        print "notices", "notices per second (" n " notices)", rate, "target 1000000", sprintf("%.2fx", rate / 1000000)
        print "notices", "peak heap (" n " notices)", heap " KiB", "", ""
      }
    }' "${out}/notices.log" >>"${results}"
}

tui() {
  run tui tui.log cargo bench -p acptk --bench tui_frame || return
  awk -F' *[|] *' 'BEGIN { OFS = "\t" }
    $2 ~ /^steady, end of/ { print "tui", "frame at rest, median", $4, "target 2 ms", sprintf("%.2fx", $4 / 2) }
    $2 ~ /^streaming/ { print "tui", "frame while streaming, median", $4, "target 2 ms", sprintf("%.2fx", $4 / 2) }
    $2 ~ /^every entry drawn again/ { whole = $4 }
    /^ratio, whole redraw/ {
      split($0, parts, ": "); split(parts[2], r, ";")
      print "tui", "every entry drawn again (before the line cache)", whole, "frame at rest", r[1]
    }' "${out}/tui.log" >>"${results}"
}

inspector() {
  if [[ ! -x /usr/bin/chromium || ! -x /usr/bin/chromedriver ]]; then
    skip inspector "open a 100,000-frame capture" "needs /usr/bin/chromium and /usr/bin/chromedriver"
    return
  fi
  run inspector inspector.log cargo bench -p acptk --bench inspect_open || return
  sed -n 's/.*first paint: cold \([0-9]*\) ms, warm median \([0-9]*\) ms.*/\1 \2/p' "${out}/inspector.log" |
    awk 'BEGIN { OFS = "\t" } {
      print "inspector", "open a 100,000-frame capture, warm median", $2 " ms", "target 1000 ms", sprintf("%.2fx", $2 / 1000)
      print "inspector", "the same, cold", $1 " ms", "target 1000 ms", sprintf("%.2fx", $1 / 1000)
    }' >>"${results}"
}

client() {
  local acpx="${ACP_BENCH_ACPX:-}"
  if ! command -v hyperfine >/dev/null; then
    skip client "one turn beside acpx" "needs hyperfine"; return
  fi
  if [[ -z "${acpx}" || ! -f "${acpx}" ]] || ! command -v node >/dev/null; then
    skip client "one turn beside acpx" "set ACP_BENCH_ACPX to acpx's dist/cli.js (npm install acpx@0.19.1), with node"
    return
  fi
  run client client-build.log cargo build --release -p acptk || return
  local a="${target}/release/acp" runs=(-w 2 -r 15)
  [[ ${quick} == 1 ]] && runs=(-w 1 -r 3)
  run client client.log hyperfine -N -i "${runs[@]}" --export-csv "${out}/client.csv" \
    "${a} client --prompt hello -- ${a} agent --ephemeral" \
    "node ${acpx} --agent '${a} agent --ephemeral' exec hello" || return
  awk -F, 'BEGIN { OFS = "\t" } NR == 2 { ours = $4 } NR == 3 { theirs = $4 }
    END { if (theirs + 0 > 0) print "client", "one-shot prompt, wall (median)", sprintf("%.3f s", ours),
      sprintf("acpx %.3f s", theirs), sprintf("%.2fx", ours / theirs) }' "${out}/client.csv" >>"${results}"
}

for area in ${areas}; do
  if wanted "${area}"; then
    "${area}"
  fi
done

{
  echo "| area | what | figure | peer | ratio |"
  echo "|---|---|---|---|---|"
  awk -F'\t' '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "${results}"
} | tee "${out}/table.md"
echo "(${out}: the logs of every run; $([[ ${quick} == 1 ]] && echo "quick mode: small runs, not figures for BENCHMARKS.md" || echo "full runs"))"
