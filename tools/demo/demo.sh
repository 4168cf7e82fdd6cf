#!/usr/bin/env bash
#   drover demo: a broker on loopback with an elastic pool and no worker at
#   all. A batch of 200 real shell tasks of mixed priority, procs and labels
#   is submitted; the pool starts `drover worker` instances on this machine
#   (the local driver) of the cheapest type that fits what waits, never more
#   than its maximum, and they run the batch. One instance's worker is killed
#   with SIGKILL mid-batch: the broker declares it lost, its tasks run again
#   on the others, and the pool destroys it. Then the broker itself is killed
#   with SIGKILL and started again on its state directory: it lost nothing it
#   acknowledged, the pool adopts the instances it finds, and the tasks they
#   were running finish without running again. When the batch is done the
#   idle instances are destroyed: the pool shrinks back to nothing.
#   Everything speaks CURVE: the demo makes a key pair for the broker, one
#   for the pool's workers and one for you (an admin), and shows a peer
#   without a key refused. A task no instance type can run is explained
#   (`drover explain`), a finished one shown (`drover show`, `drover logs`),
#   and the broker's Prometheus metrics are scraped. Then three workers of
#   its own run a service of 4 replicas: one is killed with SIGKILL and its
#   replicas start elsewhere, it comes back and takes one (even spread),
#   `drover plan drain` says what a drain would move and the drain does
#   just that; tasks with one affinity key all run on one worker. Last, a
#   pipeline from one workflow file: a fetch, an array of 8 transforms at
#   most 3 at once, a merge after all of them, a clean-up only on failure.
#   Then two owners (keys alice and bob, weights 1 and 3) share the three
#   workers fairly, visibly in `drover share`; and a worker with two GPUs
#   (declared by hand) gives each task asking one its own index.
#   Usage: tools/demo/demo.sh [path/to/drover]
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
    #   the pool's instances outlive a broker that stops (so that a restart
    #   adopts them): the demo's own go with it
    pkill -TERM -f -- "--broker $DROVER_BROKER " 2>/dev/null || true
    echo "demo: everything stopped; logs in $WORK"
    exit $status
}
trap cleanup EXIT INT TERM

say () { printf '\n\033[1m== %s\033[0m\n' "$*"; }

#   Start the broker on the demo's config, state directory and keys, its log
#   at $1. The pool's local driver starts workers with the broker's
#   environment: DROVER_KEY names the pool workers' key for them.
start_broker () {
    DROVER_KEY="$WORK/pool.key" "$DROVER" broker --config "$WORK/broker.conf" \
        --endpoint "$DROVER_BROKER" --events "$DROVER_EVENTS" >"$1" 2>&1 &
    BROKER=$!
    PIDS+=($BROKER)
}

#   Run the command after $1 (a log) until it succeeds, while the broker
#   lives: a broker that exits (its port taken, a bad config) ends the demo
#   with the end of its log, not a wait that never ends
until_broker_answers () {
    local log="$1"; shift
    until "$@" >/dev/null 2>&1; do
        if ! kill -0 "$BROKER" 2>/dev/null; then
            echo "demo: the broker exited; the end of its log ($log):" >&2
            tail -n 5 "$log" | sed 's/^/  /' >&2
            exit 1
        fi
        sleep 0.1
    done
}

#   Print `drover pool`, indented
show_pool () {
    "$DROVER" pool | sed 's/^/  /' || true
}

#   Wait up to $2 seconds until `drover pool --json`, on one line without
#   blanks, matches the grep -E pattern $1; say so if it never did
await_pool () {
    local pattern=$1 seconds=$2
    for _ in $(seq 1 $((seconds * 5))); do
        "$DROVER" pool --json 2>/dev/null | tr -d ' \n' | grep -Eq "$pattern" && return 0
        sleep 0.2
    done
    echo "demo: the pool did not reach /$pattern/ within $seconds s" >&2
    return 1
}

say "making CURVE keys: the broker's, one for the pool's workers, yours (an admin)"
mkdir -p "$WORK/keys/workers" "$WORK/keys/clients" "$WORK/keys/admins"
"$DROVER" keygen broker --dir "$WORK" >/dev/null
"$DROVER" keygen pool --dir "$WORK" >/dev/null
cp "$WORK/pool.key" "$WORK/keys/workers/"
"$DROVER" keygen you --dir "$WORK" >/dev/null
cp "$WORK/you.key" "$WORK/keys/admins/"
export DROVER_KEY="$WORK/you.key" DROVER_SERVER_KEY="$WORK/broker.key"
ls -l "$WORK"/*.key* | sed 's/^/  /'

say "the broker's config: an elastic pool of at most 4 instances of two types, no worker yet"
cat >"$WORK/broker.conf" <<CONFIG
broker
    state-dir = "$WORK/state"
    metrics = "$METRICS"
security
    key = "$WORK/broker.key"
    keys = "$WORK/keys"
health
    lost-after = 3000
assign
    restart-grace = 3000
service
    term = 2000
    gather-timeout = 1000
pool
    driver = local
    max-instances = 4
    idle-timeout = 4000
    probe-timeout = 2000
    list-interval = 2000
    type
        small
            procs = 2
            memory = 2G
            price = 0.05
        ssd
            procs = 4
            memory = 8G
            labels = "disk=ssd"
            price = 0.12
CONFIG
sed -n '/^pool/,$p' "$WORK/broker.conf" | sed 's/^/  /'

say "starting a broker on $DROVER_BROKER (events on $DROVER_EVENTS), state in $WORK/state"
start_broker "$WORK/broker.log"
until_broker_answers "$WORK/broker.log" "$DROVER" pool
show_pool

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
"$DROVER" submit --file "$WORK/quick.txt" --priority 5 >"$WORK/ids.txt" 2>/dev/null
"$DROVER" submit --file "$WORK/sort.txt" --priority 3 >>"$WORK/ids.txt" 2>/dev/null
"$DROVER" submit --file "$WORK/wide.txt" --priority 4 --procs 2 >>"$WORK/ids.txt" 2>/dev/null
"$DROVER" submit --file "$WORK/urgent.txt" --priority 0 --label disk=ssd >>"$WORK/ids.txt" 2>/dev/null
echo "demo: $(wc -l <"$WORK/ids.txt") tasks acknowledged by the broker (no worker yet: they wait)"

say "the pool grows: the cheapest type that fits what waits, 4 instances at most"
await_pool '"state":"(booting|idle|running)"' 20
show_pool
await_pool '"state":"running"' 30
show_pool

say "a task no instance type can run (label zone=c, 64 procs): accepted, with a warning"
"$DROVER" submit --label zone=c --procs 64 -- echo never >"$WORK/never.txt" 2>"$WORK/never-warning.txt"
NEVER=$(cat "$WORK/never.txt")
sed 's/^/  /' "$WORK/never-warning.txt"
say "drover explain $NEVER: why it waits, and that no instance type would fit it"
"$DROVER" explain "$NEVER"
"$DROVER" cancel "$NEVER" >/dev/null

say "the cluster while the batch runs"
"$DROVER" status || true

VICTIM=$("$DROVER" pool | awk '$4 == "running" { print $1; exit }')
if [ -n "$VICTIM" ]; then
    say "killing the worker of instance $VICTIM with SIGKILL while it runs tasks"
    pkill -KILL -f -- "--id $VICTIM( |\$)" || true
    echo "demo: the broker declares it lost after 3 s of silence, reruns its tasks elsewhere,"
    echo "      and the pool destroys the instance 2 s later (its probe timeout)"
    for _ in $(seq 1 100); do
        "$DROVER" workers 2>/dev/null | grep -q "^$VICTIM  *lost" && break
        sleep 0.1
    done
    "$DROVER" workers || true
fi

say "killing the broker with SIGKILL in the middle of the batch"
"$DROVER" tasks --limit 0 | tail -1
kill -KILL "$BROKER"
wait "$BROKER" 2>/dev/null || true
say "starting it again on the same state directory and config"
start_broker "$WORK/broker-restarted.log"
until_broker_answers "$WORK/broker-restarted.log" "$DROVER" tasks --limit 0
"$DROVER" tasks --limit 0 >"$WORK/after-restart.txt"
tail -1 "$WORK/after-restart.txt"
grep -h "store: loaded\|assign: restored" "$WORK/broker-restarted.log" | sed 's/^/  /'
echo "demo: every acknowledged task is still there; the pool adopts the instances it lists,"
echo "      their workers register again and the attempts they were running are adopted"
await_pool '"state":"(idle|running)"' 20 || true
show_pool

say "waiting for every task"
set +e
"$DROVER" wait - <"$WORK/ids.txt"
WAITED=$?
set -e

say "where the tasks ran, and how many ran twice because ${VICTIM:-an instance} died"
"$DROVER" tasks --limit 1000 | awk '
    $1 ~ /^[0-9]+$/ { ran[$7]++; if ($6 > 1) again++ }
    END { for (w in ran) printf "  %-24s %d tasks\n", w, ran[w];
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
grep -E '^drover_(tasks\{|workers\{|pool_)' <&3 | head -24 | sed 's/^/  /'
exec 3<&-

say "the batch is done: instances idle for 4 s are destroyed, the pool shrinks to nothing"
await_pool '"instances":\[\]' 60 || true
show_pool

say "services: three workers of our own, node-1..3 (4 procs each), and a service of 4 replicas"
#   Start worker node-$1 with the pool workers' key (a worker key)
start_node () {
    DROVER_KEY="$WORK/pool.key" "$DROVER" worker --broker "$DROVER_BROKER" --id "node-$1" \
        --procs 4 --label pool=nodes >>"$WORK/node-$1.log" 2>&1 &
    PIDS+=($!)
    disown $!      # killed on purpose below: no job notice
}
#   Print "SLOT WORKER" for each running replica of service web
replicas () {
    "$DROVER" service show web --json | tr -d ' \n' | grep -o '"slot":[0-9]*,"worker":"[^"]*","state":"running"' |
        sed 's/"slot":\([0-9]*\),"worker":"\([^"]*\)".*/\1 \2/'
}
#   Wait until web runs 4 replicas, none pending, none on worker $1 ("" any)
await_web () {
    for _ in $(seq 1 150); do
        if "$DROVER" service show web --json 2>/dev/null | tr -d ' \n' |
                grep -q '"running":4,"pending":0' &&
           ! replicas | grep -q " $1\$" && [ "$(replicas | wc -l)" -eq 4 ]; then
            return 0
        fi
        sleep 0.2
    done
    echo "demo: web did not run 4 replicas${1:+ off $1} within 30 s" >&2
    return 1
}
for n in 1 2 3; do start_node $n; done
for _ in $(seq 1 100); do
    [ "$("$DROVER" workers 2>/dev/null | grep -c '^node-[123]  *up  *ok')" -eq 3 ] && break
    sleep 0.2
done
"$DROVER" service create web --replicas 4 -- sleep 600
await_web ""
"$DROVER" service show web
VICTIM=$(replicas | awk '{ n[$2]++ } END { for (w in n) if (n[w] == 2) print w }' | head -1)

say "killing $VICTIM (it runs two replicas) with SIGKILL"
pkill -KILL -f -- "--id $VICTIM( |\$)" || true
echo "demo: lost after 3 s of silence; its replicas start at once on the others"
await_web "$VICTIM"
"$DROVER" service show web

say "$VICTIM comes back: even spread takes one replica there (2/1/1), the others stay"
start_node "${VICTIM#node-}"
for _ in $(seq 1 150); do
    [ "$(replicas | grep -c " $VICTIM\$")" -eq 1 ] && [ "$(replicas | wc -l)" -eq 4 ] && break
    sleep 0.2
done
"$DROVER" service show web
"$DROVER" service stats

TARGET=$(replicas | awk '{ n[$2]++ } END { for (w in n) if (n[w] == 2) print w }' | head -1)
TARGET=${TARGET:-node-1}
say "drover plan drain $TARGET: what a drain would do, computed and not done"
"$DROVER" plan drain "$TARGET" | sed -n '1,/^$/p'
"$DROVER" plan drain "$TARGET" --json | tr -d ' \n' | grep -o '"kind":"move","service":"web","slot":[0-9]*,"task":[0-9]*,"from":"[^"]*","to":"[^"]*"' |
    sed 's/.*"slot":\([0-9]*\),.*"to":"\([^"]*\)"/\1 \2/' | sort >"$WORK/planned.txt"
say "drover drain $TARGET: the same moves, made"
"$DROVER" drain "$TARGET"
await_web "$TARGET"
"$DROVER" service show web
replicas | sort >"$WORK/after-drain.txt"
if [ -s "$WORK/planned.txt" ] && join "$WORK/planned.txt" "$WORK/after-drain.txt" | awk '$2 != $3 { bad = 1 } END { exit bad }' &&
   [ "$(join "$WORK/planned.txt" "$WORK/after-drain.txt" | wc -l)" -eq "$(wc -l <"$WORK/planned.txt")" ]; then
    echo "demo: the drain moved what the plan said, where it said:"
    sed 's/^\([0-9]*\) \(.*\)/  web\/\1 -> \2/' "$WORK/planned.txt"
else
    echo "demo: the drain did not do what the plan said" >&2
    sed 's/^/  planned: /' "$WORK/planned.txt" >&2
    sed 's/^/  now:     /' "$WORK/after-drain.txt" >&2
    exit 1
fi
"$DROVER" service delete web
"$DROVER" resume "$TARGET" >/dev/null

say "affinity: 6 tasks with the key dataset-a run on one worker, the first of the key's order"
for i in $(seq 1 6); do
    "$DROVER" submit --affinity dataset-a -- echo "part $i of dataset-a" 2>/dev/null
done >"$WORK/affine.txt"
"$DROVER" wait - <"$WORK/affine.txt" >/dev/null
"$DROVER" tasks --limit 1000 | awk -v ids="$(tr '\n' ' ' <"$WORK/affine.txt")" '
    BEGIN { n = split(ids, list, " "); for (i = 1; i <= n; i++) want[list[i]] = 1 }
    $1 in want { ran[$7]++ }
    END { for (w in ran) printf "  %-10s %d tasks\n", w, ran[w] }'

say "a pipeline in one workflow file: fetch, 8 transforms (3 at once), a merge, a clean-up"
DATA="$WORK/data"
cat >"$WORK/pipeline.flow" <<FLOW
# fetch the data, transform each part (at most 3 at once), merge them;
# clean up only if something failed (the merge did not succeed: it failed,
# or was cancelled because a step before it failed)
fetch:     sh -c 'mkdir -p $DATA && seq 1 8 >$DATA/parts'
transform: --after fetch --array 1-8%3 -- sh -c 'sleep 0.3; echo part \$DROVER_ARRAY_INDEX >$DATA/done.\$DROVER_ARRAY_INDEX'
merge:     --after transform -- sh -c 'cat $DATA/done.* | wc -l'
cleanup:   --after-fail merge -- rm -rf $DATA
FLOW
sed 's/^/  /' "$WORK/pipeline.flow"
"$DROVER" submit --workflow "$WORK/pipeline.flow" >"$WORK/pipeline.ids"
sed 's/^/  /' "$WORK/pipeline.ids"
WORKFLOW=$(awk '$1 == "workflow" { print $2 }' "$WORK/pipeline.ids")
TRANSFORM=$(awk '$1 == "transform" { print $2 }' "$WORK/pipeline.ids")
MERGE=$(awk '$1 == "merge" { print $2 }' "$WORK/pipeline.ids")
say "drover explain $MERGE (the merge): what it waits for"
"$DROVER" explain "$MERGE" || true
say "drover wait $WORKFLOW: the whole graph's progress, then its outcome"
"$DROVER" wait "$WORKFLOW" || true
"$DROVER" tasks --array "$TRANSFORM"
say "drover show $MERGE: its parents; drover logs: what it said"
"$DROVER" show "$MERGE" | grep -E '^(task|state|parents|command):' || true
"$DROVER" logs "$MERGE" || true
CLEANUP=$(awk '$1 == "cleanup" { print $2 }' "$WORK/pipeline.ids")
echo "demo: nothing failed, so the clean-up (task $CLEANUP) was not needed:"
"$DROVER" tasks --array "$WORKFLOW" | awk -v id="$CLEANUP" '$1 == id { print "  " $0 }'

say "sharing: alice (weight 1) and bob (weight 3) share node-1..3 (label pool=nodes); alice queues first"
for who in alice bob; do
    "$DROVER" keygen "$who" --dir "$WORK" >/dev/null
    cp "$WORK/$who.key" "$WORK/keys/clients/"
done
"$DROVER" share set bob --weight 3
for n in 1 2 3; do "$DROVER" hold "node-$n" >/dev/null; done
for who in alice bob; do
    for i in $(seq 1 24); do
        DROVER_KEY="$WORK/$who.key" "$DROVER" submit --label pool=nodes -- sleep 2 2>/dev/null
    done >"$WORK/$who.ids"
done
echo "demo: 24 tasks each queued while the workers were held; resuming them"
for n in 1 2 3; do "$DROVER" resume "node-$n" >/dev/null; done
sleep 1
"$DROVER" share
RUNNING=$("$DROVER" tasks --state running --json | tr -d ' \n')
ALICE_RUNNING=$(echo "$RUNNING" | grep -o '"owner":"alice"' | wc -l)
BOB_RUNNING=$(echo "$RUNNING" | grep -o '"owner":"bob"' | wc -l)
echo "demo: running now: alice $ALICE_RUNNING, bob $BOB_RUNNING of 12 procs (fair: 3 and 9)"
ALICE_WAITING=$(tail -1 "$WORK/alice.ids")
say "drover explain $ALICE_WAITING (alice's last task)"
"$DROVER" explain "$ALICE_WAITING" || true
cat "$WORK/alice.ids" "$WORK/bob.ids" | "$DROVER" wait - >/dev/null || true

say "counted devices: a worker with 2 GPUs (given by hand), 6 tasks asking 1 each"
DROVER_KEY="$WORK/pool.key" "$DROVER" worker --broker "$DROVER_BROKER" --id node-gpu \
    --procs 4 --device gpu=2 --label gpu=yes >>"$WORK/node-gpu.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do
    "$DROVER" workers 2>/dev/null | grep -q '^node-gpu  *up' && break
    sleep 0.2
done
for i in $(seq 1 6); do
    "$DROVER" submit --device gpu=1 --label gpu=yes -- \
        sh -c 'echo "sees CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"; sleep 1' 2>/dev/null
done >"$WORK/gpu.ids"
"$DROVER" wait - <"$WORK/gpu.ids" >/dev/null || true
"$DROVER" workers | sed -n '1p;/^node-gpu/p'
while read -r id; do
    printf '  task %s on %s: %s\n' "$id" \
        "$("$DROVER" show "$id" | awk '$1 == "assigned:" { print $2 }')" "$("$DROVER" logs "$id")"
done <"$WORK/gpu.ids"

say "final status"
"$DROVER" status || true
exit $WAITED
