#!/usr/bin/env bash
# Faults across processes, the long campaign (issue 28): runs test_Faults with ROUNDS rounds of
# each scenario (SIGKILL of a rank, of launch, of the window; SIGSTOP of a rank; a corrupt latest
# checkpoint on resume) at seeded random moments of a 2-rank run, and prints a Markdown table.
#
#   scripts/faults.sh [ROUNDS [SEED]]    ROUNDS defaults to 10; SEED to a random one (printed)
#
# Every round checks that the checkpoint the index calls latest loads, that --resume ends at the
# planned final step (128) and that no process of the round is left (test_Faults.cpp). Needs the
# build: ninja -C build test_Faults towerbench-cli (BUILD overrides the build directory); the
# rounds run a copy of the CLI (TB_FAULT_CLI). The whole output is kept in build/faults.log.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD:-$repo/build}"
test="$build/tests/app/test_Faults"
rounds="${1:-10}"
[[ -x "$test" ]] || { echo "faults.sh: $test is missing (ninja -C build test_Faults)" >&2; exit 1; }

log="$build/faults.log"
# A copy of the CLI: a build that relinks build/bin/towerbench-cli meanwhile cannot fail a round.
cli_copy="$(mktemp -d)"
trap 'rm -rf "$cli_copy"' EXIT
cp "$build/bin/towerbench-cli" "$cli_copy/"
export TB_FAULT_CLI="$cli_copy/towerbench-cli"
export TB_FAULT_ROUNDS="$rounds" QT_QPA_PLATFORM=offscreen TB_QUIET=1
[[ $# -ge 2 ]] && export TB_FAULT_SEED="$2"
start=$(date +%s)
"$test" >"$log" 2>&1
status=$?
seconds=$(($(date +%s) - start))

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
seed=$(grep -o 'FAULT-SEED [0-9]*' "$log" | head -1 | cut -d' ' -f2)
echo "test_Faults: $rounds round(s) per scenario, seed $seed, $seconds s, $cpu, $(nproc) cores"
echo
echo "| scenario | rounds passed | faults: victim@checkpoint+delay | resumed from step | checkpoints that failed to load | temporary files the faults left (the resume removed them) | run.json read as | resumes that reached the final step | the others ended after (s) | processes left |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for scenario in sigkill-rank sigkill-launch sigkill-window sigstop-rank corrupt-latest; do
  grep -o "FAULT scenario=$scenario .*" "$log" | awk -v s="$scenario" -v want="$rounds" '
    function range(lo, hi) { return lo == "" ? "-" : (lo == hi ? lo : lo "-" hi) }
    {
      delete f
      for (i = 2; i <= NF; ++i) { split($i, kv, "="); f[kv[1]] = kv[2] }
      at = f["at"]; sub(/^model-/, "", at); sub(/\.pt\+/, "+", at)
      faults = faults (n ? ", " : "") f["victim"] "@" at
      from = (s == "corrupt-latest") ? f["resumed_from"] : f["latest"]
      resumed = resumed (n ? ", " : "") from
      if (s == "corrupt-latest") broken += 0  # its latest was cut short on purpose
      else if (f["loads"] != "yes" || f["checkpoints_all_load"] == "") ++broken
      temporary += f["temporary_files"]
      if (f["run.json"] != "" && index(" " states " ", " " f["run.json"] " ") == 0) states = states (states ? " " : "") f["run.json"]
      if (f["resumed_to"] != "" && f["resumed_to"] == f["planned"]) ++reached
      planned = f["planned"]
      if (f["left"] != 0) ++left
      t = f["others_ended_after"]; sub(/s$/, "", t)
      if (t != "") { if (lo == "" || t + 0 < lo + 0) lo = t; if (hi == "" || t + 0 > hi + 0) hi = t }
      t = f["stopped_ended_after_sigcont"]; sub(/s$/, "", t)
      if (t != "") { if (clo == "" || t + 0 < clo + 0) clo = t; if (chi == "" || t + 0 > chi + 0) chi = t }
      ++n
    }
    END {
      ended = range(lo, hi)
      broken += 0
      if (clo != "") ended = ended "; the stopped rank, after SIGCONT: " range(clo, chi)
      if (s == "corrupt-latest") {
        ended = "-"
        broken = "0 (besides the latest, cut short on purpose)"
        states = "-"
      }
      gsub(/_/, " ", states)
      printf "| %s | %d of %d | %s | %s | %s | %d | %s | %d of %d (step %s) | %s | %d |\n", s, n,
             want, (n ? faults : "-"), (n ? resumed : "-"), broken, temporary,
             (states ? states : "-"), reached, n, planned, ended, left
    }'
done
echo
grep -E '^(FAIL!|Totals)' "$log"
exit $status
