#!/usr/bin/env bash
#   drover demo: a broker and two local workers on loopback run a batch of
#   200 real shell tasks of mixed priority and procs, with progress and a
#   summary. A third worker is killed with SIGKILL mid-batch: the broker
#   declares it lost and its tasks run again on the others. Then the broker
#   itself is killed with SIGKILL and started again on its state directory:
#   it lost nothing it acknowledged, and the tasks its workers were running
#   finish without running again. Everything speaks CURVE: the demo makes
#   a key pair for the broker, for each worker and for you (an admin), and
#   shows a peer without a key refused. A task no worker can run is
#   explained (`drover explain`), a finished one shown (`drover show`,
#   `drover logs`), and the broker's Prometheus metrics are scraped.
#   Everything is shut down cleanly at the end. Usage: tools/demo.sh [path/to/drover]
set -euo pipefail
DROVER="$(realpath "${1:-build/drover}")"
PORT="${DROVER_DEMO_PORT:-5555}"
export DROVER_BROKER="tcp://127.0.0.1:$PORT"
export DROVER_EVENTS="tcp://127.0.0.1:$((PORT + 1))"
METRICS="127.0.0.1:$((PORT + 2))"
WORK="$(mktemp -d /tmp/drover-demo.XXXXXX)"
PIDS=()

#   Stop whatever we started, workers first, and keep the logs' location
cleanup () {
    local status=$?
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    echo "demo: everything stopped; logs in $WORK"
    exit $status
}
trap cleanup EXIT INT TERM

say () { printf '\n\033[1m== %s\033[0m\n' "$*"; }

#   Start the broker on the demo's state directory and keys, its log at $1
start_broker () {
    "$DROVER" broker --endpoint "$DROVER_BROKER" --events "$DROVER_EVENTS" \
        --key "$WORK/broker.key" --keys "$WORK/keys" --metrics "$METRICS" \
        --state-dir "$WORK/state" --set health/lost-after=3000 \
        --set assign/restart-grace=3000 >"$1" 2>&1 &
    BROKER=$!
    PIDS+=($BROKER)
}

#   Start a worker agent: id, procs, then any other flags; its key pins its id
start_worker () {
    local id=$1 procs=$2
    shift 2
    "$DROVER" worker --broker "$DROVER_BROKER" --id "$id" --procs "$procs" \
        --key "$WORK/$id.key" --server-key "$WORK/broker.key" "$@" >"$WORK/$id.log" 2>&1 &
}

say "making CURVE keys: the broker's, one per worker (pinned to its id), yours (an admin)"
mkdir -p "$WORK/keys/workers" "$WORK/keys/clients" "$WORK/keys/admins"
"$DROVER" keygen broker --dir "$WORK" >/dev/null
for id in alpha beta gamma; do
    "$DROVER" keygen "$id" --dir "$WORK" --worker-ids "$id" >/dev/null
    cp "$WORK/$id.key" "$WORK/keys/workers/"
done
"$DROVER" keygen you --dir "$WORK" >/dev/null
cp "$WORK/you.key" "$WORK/keys/admins/"
export DROVER_KEY="$WORK/you.key" DROVER_SERVER_KEY="$WORK/broker.key"
ls -l "$WORK"/*.key* | sed 's/^/  /'

say "starting a broker on $DROVER_BROKER (events on $DROVER_EVENTS), state in $WORK/state"
start_broker "$WORK/broker.log"
say "starting two workers: alpha (4 procs, label disk=ssd) and beta (2 procs)"
start_worker alpha 4 --label disk=ssd
PIDS+=($!)
start_worker beta 2
PIDS+=($!)
say "starting a third worker, gamma (2 procs), which will be killed mid-batch"
start_worker gamma 2
GAMMA=$!

say "a client without a key is refused at the handshake"
if env -u DROVER_KEY -u DROVER_SERVER_KEY XDG_CONFIG_HOME="$WORK/nowhere" \
       "$DROVER" status --broker-timeout 2 >"$WORK/nokey.txt" 2>&1; then
    echo "demo: a client without a key was served: CURVE is not on" >&2
    exit 1
fi
sed 's/^/  /' "$WORK/nokey.txt"

say "writing a batch of 200 shell tasks in four groups"
for i in $(seq 1 100); do
    echo "echo quick $i; sleep 0.0$((RANDOM % 6))"
done >"$WORK/quick.txt"
for i in $(seq 1 50); do
    echo "seq 1 $((20000 + i * 100)) | sort -rn | head -1 >/dev/null; echo sorted $i"
done >"$WORK/sort.txt"
for i in $(seq 1 40); do
    echo "sleep 0.1; echo wide $i on \$(hostname)"
done >"$WORK/wide.txt"
for i in $(seq 1 10); do
    echo "echo urgent $i; sleep 0.05"
done >"$WORK/urgent.txt"

say "submitting: 100 quick (priority 5), 50 sorts (priority 3), 40 two-proc (priority 4), 10 urgent on ssd (priority 0)"
"$DROVER" submit --file "$WORK/quick.txt" --priority 5 >"$WORK/ids.txt"
"$DROVER" submit --file "$WORK/sort.txt" --priority 3 >>"$WORK/ids.txt"
"$DROVER" submit --file "$WORK/wide.txt" --priority 4 --procs 2 >>"$WORK/ids.txt"
"$DROVER" submit --file "$WORK/urgent.txt" --priority 0 --label disk=ssd >>"$WORK/ids.txt"
echo "demo: $(wc -l <"$WORK/ids.txt") tasks acknowledged by the broker"

say "a task no worker can run (label zone=c, 64 procs): accepted, with a warning"
"$DROVER" submit --label zone=c --procs 64 -- echo never >"$WORK/never.txt" 2>"$WORK/never-warning.txt"
NEVER=$(cat "$WORK/never.txt")
sed 's/^/  /' "$WORK/never-warning.txt"
say "drover explain $NEVER: why it waits, worker by worker, and what would unblock it"
"$DROVER" explain "$NEVER"
"$DROVER" cancel "$NEVER" >/dev/null

say "the cluster while the batch runs"
"$DROVER" status || true

say "killing worker gamma with SIGKILL while it runs tasks"
kill -KILL "$GAMMA"
wait "$GAMMA" 2>/dev/null || true     #  reap it quietly
echo "demo: the broker declares gamma lost after 3 s of silence and reruns its tasks elsewhere"
for _ in $(seq 1 100); do
    "$DROVER" workers 2>/dev/null | grep -q "^gamma  *lost" && break
    sleep 0.1
done
"$DROVER" workers || true

say "killing the broker with SIGKILL in the middle of the batch"
"$DROVER" tasks --limit 0 | tail -1
kill -KILL "$BROKER"
wait "$BROKER" 2>/dev/null || true
say "starting it again on the same state directory"
start_broker "$WORK/broker-restarted.log"
until "$DROVER" tasks --limit 0 >"$WORK/after-restart.txt" 2>/dev/null; do sleep 0.2; done
tail -1 "$WORK/after-restart.txt"
grep -h "store: loaded\|assign: restored" "$WORK/broker-restarted.log" | sed 's/^/  /'
echo "demo: every acknowledged task is still there; the workers register again and the"
echo "      attempts they were running are adopted, not run again"

say "waiting for every task"
set +e
"$DROVER" wait - <"$WORK/ids.txt"
WAITED=$?
set -e

say "the workers now (gone workers are listed until the broker restarts: gamma went before)"
"$DROVER" workers || true

say "where the tasks ran, and how many ran twice because gamma died"
"$DROVER" tasks --limit 1000 | awk '
    $1 ~ /^[0-9]+$/ { ran[$7]++; if ($6 > 1) again++ }
    END { for (w in ran) printf "  %-6s %d tasks\n", w, ran[w];
          printf "  rerun after a lost worker: %d\n", again }'

RERUN=$("$DROVER" tasks --limit 1000 | awk '$1 ~ /^[0-9]+$/ && $6 > 1 { id = $1 } END { print id }')
FIRST=$(head -1 "$WORK/ids.txt")
say "what happened to task ${RERUN:-$FIRST}: drover show (every field, each attempt)"
"$DROVER" show "${RERUN:-$FIRST}" || true
say "its output, as it came: drover logs ${RERUN:-$FIRST}"
"$DROVER" logs "${RERUN:-$FIRST}" || true

say "the broker's Prometheus metrics (http://$METRICS/metrics), a few of them"
exec 3<>"/dev/tcp/${METRICS%:*}/${METRICS#*:}"
printf 'GET /metrics HTTP/1.0\r\nHost: %s\r\n\r\n' "$METRICS" >&3
grep -E '^drover_(tasks|workers|tasks_submitted_total|tasks_ended_total)' <&3 | head -12 | sed 's/^/  /'
exec 3<&-

say "final status"
"$DROVER" status || true
exit $WAITED
