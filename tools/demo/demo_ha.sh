#!/usr/bin/env bash
#   drover demo, several brokers: a real etcd and a real PostgreSQL on
#   loopback (started with the tests' scripts), two brokers b1 and b2 that
#   elect a leader through etcd and keep one state in PostgreSQL, and a
#   worker given both endpoints. A batch of short tasks and four long ones
#   is submitted; then the leader is killed with SIGKILL mid-batch. Within
#   the lease's TTL the other is elected, loads the state and serves: the
#   worker re-registers by itself, the long tasks it was running are
#   adopted (each started once), every acknowledged task ends once, and the
#   time from the kill to the first task the new leader accepts is shown.
#   Both brokers also offer two named queues, a and b, which the leader
#   spreads over them by rendezvous hashing (ha/strategy spread): a
#   worker serves queue a (`--queue a`), `drover status` shows which
#   broker serves which queue, and the queues of the killed broker move to
#   the other, a long task of queue a adopted there too; back, the killed
#   broker takes again the queues rendezvous hashing gives it.
#   The killed broker comes back as a standby; the brokers' events
#   (broker.leader, broker.standby) are printed last.
#   Usage: tools/demo/demo_ha.sh [path/to/drover]
set -euo pipefail
DROVER="$(realpath "${1:-build/drover}")"
TESTS="$(cd "$(dirname "$0")/../../tests" && pwd)"
BASE=$(( ${DROVER_DEMO_PORT:-5555} + 20 ))
B1="tcp://127.0.0.1:$BASE"
B2="tcp://127.0.0.1:$((BASE + 2))"
export DROVER_BROKER="$B1,$B2"
LEASE_TTL=4000                  #   the default
WORK="$(mktemp -d /tmp/drover-demo-ha.XXXXXX)"
chmod 0711 "$WORK"              #   PostgreSQL runs as postgres under it
PIDS=()
declare -A BROKER_PID

#   Stop the brokers, the worker and both servers; keep the logs
cleanup () {
    local status=$?
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    "$TESTS/etcd_server.sh" stop "$WORK/etcd" >/dev/null 2>&1 || true
    "$TESTS/pg_server.sh" stop "$WORK/pg" >/dev/null 2>&1 || true
    echo "demo-ha: everything stopped; logs in $WORK"
    exit $status
}
trap cleanup EXIT INT TERM

say () { printf '\n\033[1m== %s\033[0m\n' "$*"; }

#   Wait up to $3 tenths of a second for $2 to appear in file $1
await_line () {
    for _ in $(seq 1 "$3"); do
        grep -q -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "demo-ha: '$2' not seen in $1" >&2
    return 1
}

#   The ports of broker $1's named queues a and b (each takes the next too)
queue_port () {
    local offset=$(( ${1#b} * 4 + 16 ))
    [ "$2" = a ] && echo $((BASE + offset)) || echo $((BASE + offset + 2))
}

#   Start broker $1 (b1 or b2) on its ports; its log is $WORK/$1.log
start_broker () {
    local name=$1 port=$2
    [ -f "$WORK/$name.log" ] && mv "$WORK/$name.log" "$WORK/$name.before.log"
    "$DROVER" broker --etcd "$ETCD" --state "$STATE" --name "$name" --lease-ttl $LEASE_TTL \
        --endpoint "tcp://127.0.0.1:$port" --events "tcp://127.0.0.1:$((port + 1))" \
        --set ha/queues=a=$(queue_port "$name" a),b=$(queue_port "$name" b) \
        --set ha/strategy=spread \
        --set health/heartbeat=500 --set health/lost-after=5000 >"$WORK/$name.log" 2>&1 &
    BROKER_PID[$name]=$!
    PIDS+=($!)
}

#   The name of the broker that leads now, from the brokers' logs
leader () {
    local name
    for name in b1 b2; do
        if [ -n "${BROKER_PID[$name]:-}" ] && kill -0 "${BROKER_PID[$name]}" 2>/dev/null &&
           [ "$(grep -c 'ha: elected' "$WORK/$name.log")" -gt "$(grep -c 'ha: stepped down' "$WORK/$name.log")" ]; then
            echo "$name"; return
        fi
    done
}

say "etcd and PostgreSQL, real servers on loopback (tests/etcd_server.sh, tests/pg_server.sh)"
ETCD=$("$TESTS/etcd_server.sh" start "$WORK/etcd" $((BASE + 10)) $((BASE + 11)))
STATE=$("$TESTS/pg_server.sh" start "$WORK/pg" $((BASE + 12)))
echo "etcd:       $ETCD"
echo "PostgreSQL: $STATE"

say "two brokers elect a leader through etcd (lease TTL $LEASE_TTL ms); one state in PostgreSQL"
start_broker b1 "$BASE"
await_line "$WORK/b1.log" "ha: elected" 150
start_broker b2 $((BASE + 2))
await_line "$WORK/b2.log" "ha: following" 150
grep -h "ha: " "$WORK/b1.log" "$WORK/b2.log" | sed 's/^[^ ]* [^ ]* [^ ]* /  /'
EVENT_PIDS=()
for port in $((BASE + 1)) $((BASE + 3)); do
    "$DROVER" events --events "tcp://127.0.0.1:$port" --topic broker. >"$WORK/$port.events" 2>/dev/null &
    EVENT_PIDS+=($!)
done

say "a worker given both endpoints ($DROVER_BROKER)"
"$DROVER" worker --id w1 --procs 8 --workdir "$WORK" --verbose >"$WORK/w1.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do
    "$DROVER" workers 2>/dev/null | grep -q '^w1  *up' && break
    sleep 0.1
done
#   A worker of queue a takes the queue's endpoints once, when it starts:
#   wait until the brokers list both (each broker's offer is read within
#   a quarter of the lease), or it could not follow the queue to b2
for _ in $(seq 1 100); do
    [ "$("$DROVER" status --json 2>/dev/null | grep -o '"name":"a"[^]]*]' | grep -o 'tcp://' |
         wc -l)" -ge 3 ] && break
    sleep 0.1
done
"$DROVER" worker --queue a --id wa --procs 2 --workdir "$WORK" --verbose >"$WORK/wa.log" 2>&1 &
PIDS+=($!)
await_line "$WORK/wa.log" "registered" 100
"$DROVER" status || true

say "four long tasks (6 s) and 200 short ones, submitted to the leader; a long one to queue a"
QUEUE_A_TASK=$("$DROVER" submit --queue a -- sh -c "sleep 6; echo queue a long")
echo "demo-ha: queue a acknowledged task $QUEUE_A_TASK"
for i in 1 2 3 4; do
    "$DROVER" submit -- sh -c "sleep 6; echo long $i"
done >"$WORK/long.txt"
seq 1 200 | sed 's/.*/sleep 0.05; echo short &/' >"$WORK/batch.txt"
"$DROVER" submit --file "$WORK/batch.txt" >"$WORK/short.txt"
cat "$WORK/long.txt" "$WORK/short.txt" >"$WORK/ids.txt"
echo "demo-ha: $(wc -l <"$WORK/ids.txt") tasks acknowledged"
await_line "$WORK/w1.log" "starting task=$(tail -1 "$WORK/long.txt") " 100

OLD=$(leader)
say "kill -9 the leader ($OLD) mid-batch"
kill -KILL "${BROKER_PID[$OLD]}"
KILLED_AT=$(date +%s%N)
#   The client follows REDIRECTs and moves on from the dead broker by itself
AFTER=$("$DROVER" submit --broker-timeout 30 -- echo after the failover)
ACCEPTED_AT=$(date +%s%N)
NEW=$(leader)
echo "demo-ha: $NEW leads; its first task ($AFTER) accepted $(( (ACCEPTED_AT - KILLED_AT) / 1000000 )) ms after the kill"
echo "$AFTER" >>"$WORK/ids.txt"
grep -h "ha: " "$WORK/$NEW.log" | sed 's/^[^ ]* [^ ]* [^ ]* /  /'

say "the killed broker's queues moved to $NEW; queue a still serves"
"$DROVER" status 2>/dev/null | grep -A1 '^queues:' || true
"$DROVER" submit --queue a --wait --broker-timeout 30 -- echo queue a after the failover
DROVER_BROKER="tcp://127.0.0.1:$(queue_port b1 a),tcp://127.0.0.1:$(queue_port b2 a)" \
    "$DROVER" wait --broker-timeout 30 "$QUEUE_A_TASK"
starts=$(grep -c "starting task=$QUEUE_A_TASK " "$WORK/wa.log" || true)
echo "  queue a's long task $QUEUE_A_TASK: started $starts time(s) on wa"
[ "$starts" -eq 1 ] || { echo "demo-ha: queue a's long task ran again" >&2; exit 1; }

say "every acknowledged task ends once; the long ones were adopted, not run again"
"$DROVER" wait - <"$WORK/ids.txt"
while read -r id; do
    starts=$(grep -c "starting task=$id " "$WORK/w1.log" || true)
    echo "  long task $id: started $starts time(s) on w1"
    [ "$starts" -eq 1 ] || { echo "demo-ha: long task $id ran again" >&2; exit 1; }
done <"$WORK/long.txt"

say "$OLD comes back: it stands by, names $NEW to everyone, and takes back the queues it wins"
if [ "$OLD" = b1 ]; then start_broker b1 "$BASE"; else start_broker b2 $((BASE + 2)); fi
await_line "$WORK/$OLD.log" "ha: following name=$NEW" 150
#   Spread gives it back the queues it wins by rendezvous hashing, only those
for queue in a b; do
    if grep -q "ha: queue $queue placed on $OLD" "$WORK/$OLD.before.log"; then
        await_line "$WORK/$OLD.log" "cell $queue: serving" 150
    fi
done
"$DROVER" status || true

say "the brokers' events (broker.leader, broker.standby)"
for pid in "${EVENT_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
cat "$WORK"/*.events | sed 's/^/  /'
