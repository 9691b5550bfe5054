#!/usr/bin/env bash
# The suite under load, as a new user on a busy machine runs it: the README's test command
# (.ci/run, which tests/test_docs.py holds to the README) RUNS times in a row (default 5) in a
# clean clone of this checkout, with no ../shared beside it, while a CPU hog keeps two cores
# busy (`stress-ng --cpu 2` if installed, else two busy loops), beside pytest's two workers.
# Prints each run's verdict and time; keeps each run's log; exits 1 if any run failed.
#
#   tests/stress.sh [RUNS]        the clone and the logs go to a new folder under $TMPDIR
set -euo pipefail

runs=${1:-5}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "usage: tests/stress.sh [RUNS], RUNS a positive count" >&2; exit 2; }
source_checkout=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
work=$(mktemp -d "${TMPDIR:-/tmp}/mcs-stress.XXXXXX")
clone=$work/repo  # $work holds no `shared`: the tests that read ../shared skip
hogs=()

stop_hogs() {
    for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM

git clone -q "$source_checkout" "$clone"
git -C "$clone" checkout -q "$(git -C "$source_checkout" rev-parse HEAD)"
echo "clone of $(git -C "$clone" rev-parse --short HEAD) in $clone"

if command -v stress-ng >/dev/null; then
    stress-ng --cpu 2 --quiet & hogs+=($!)
    echo "load: stress-ng --cpu 2 (pid ${hogs[*]})"
else
    for _ in 1 2; do (while :; do :; done) & hogs+=($!); done
    echo "load: two busy loops (pids ${hogs[*]})"
fi

failed=0
for run in $(seq "$runs"); do
    git -C "$clone" clean -xdfq -e .venv  # each run starts clean but for the venv
    log=$work/run-$run.log
    started=$SECONDS
    if (cd "$clone" && .ci/run) >"$log" 2>&1; then verdict=pass; else verdict=FAIL; failed=1; fi
    summary=$(grep -E '(passed|failed|error)[^|]* in [0-9.]+s' "$log" | tail -1 | tr -d '=' | xargs)
    echo "run $run/$runs: $verdict in $((SECONDS - started)) s: ${summary:-no summary, see $log}"
    [[ $verdict == pass ]] || grep -E '^(FAILED|ERROR) ' "$log" | sed 's/^/    /' || true
done
echo "logs: $work/run-*.log"
exit $failed
