#!/usr/bin/env bash
#   sidebyside.sh - the same no-op workload on drover, on gearmand and on a
#   bare ZeroMQ forwarder, in one run, on loopback: (a) no-op throughput
#   and (b) one-at-a-time round trip; and durable acknowledged submits on
#   drover (durability full) and on gearmand with its SQLite queue. These
#   machines are noisy: only ratios measured in one run mean anything.
#
#   usage: tools/bench/sidebyside.sh [--drover PATH] [--forwarder PATH] [--tasks N]
#                              [--rtt N] [--workers N] [--batch N]
#                              [--submits N] [--bg-jobs N] [--cpus MODE]
#     --drover PATH     the drover executable (default: $DROVER_BIN, else build/drover)
#     --forwarder PATH  the bare ZeroMQ forwarder (default: $ZMQ_FORWARDER_BIN,
#                       else build/zmq_forwarder, built with drover)
#     --tasks N         no-op tasks for the throughput figure (100000)
#     --rtt N           round trips timed (10000)
#     --workers N       worker processes on gearmand, in-process workers on
#                       drover and on the forwarder (2)
#     --batch N         gearman tasks per gearman_client_run_tasks (100)
#     --submits N       drover's durable acknowledged submits (100000)
#     --bg-jobs N       gearmand's background jobs, one at a time and then
#                       in batches of --batch (1000 each)
#     --cpus MODE       where (a) and (b) run: shared (every process on any
#                       CPU), pinned (each broker process on CPU 0 alone, its
#                       clients and workers on the other CPUs, with taskset;
#                       drover's by broker/cpus, the forwarder's by its
#                       --broker-cpu), or both, one after the other (default)
#
#   Installs gearman-job-server and libgearman-dev with apt-get if missing,
#   builds tools/bench/gearman/noop_worker.c, noop_client.c and bg_client.c into
#   a temporary directory. For each mode it runs gearmand on a free
#   127.0.0.1 port with --workers noop workers and the client,
#   tools/bench/peers/zmq_forwarder (a broker process that only forwards, on
#   127.0.0.1 ports it picks) and `drover bench --phases noop,rtt` with
#   durability off (gearmand keeps no foreground job either), with the same
#   sizes (window 1000). Then a gearmand with its SQLite queue (-q
#   libsqlite3, a fresh file) and no worker, to which bg_client submits
#   background jobs, and `drover bench --phases rtt,durable,curve` with
#   drover's default durability, full (curve: the no-op throughput and round
#   trip with CURVE on, beside off). It prints, per mode, figure, drover,
#   gearmand, forwarder and the ratios drover / gearmand and drover /
#   forwarder, then the durable figures. Everything it started is stopped
#   on exit. Exits non-zero if anything failed.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
drover=${DROVER_BIN:-$here/../../build/drover}
forwarder=${ZMQ_FORWARDER_BIN:-$here/../../build/zmq_forwarder}
tasks=100000
rtt=10000
workers=2
batch=100
submits=100000
bg_jobs=1000
ncpus=$(nproc)
cpus=both

die () { echo "sidebyside: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
    case "$1" in
        --drover)  drover=${2:?--drover needs a value}; shift 2 ;;
        --forwarder) forwarder=${2:?--forwarder needs a value}; shift 2 ;;
        --tasks)   tasks=${2:?--tasks needs a value}; shift 2 ;;
        --rtt)     rtt=${2:?--rtt needs a value}; shift 2 ;;
        --workers) workers=${2:?--workers needs a value}; shift 2 ;;
        --batch)   batch=${2:?--batch needs a value}; shift 2 ;;
        --submits) submits=${2:?--submits needs a value}; shift 2 ;;
        --bg-jobs) bg_jobs=${2:?--bg-jobs needs a value}; shift 2 ;;
        --cpus)    cpus=${2:?--cpus needs a value}; shift 2 ;;
        -h|--help) sed -n '2,45s/^#   \{0,1\}//p' "$0"; exit 0 ;;
        *)         die "unknown argument '$1' (see --help)" ;;
    esac
done
 case $cpus in
    shared) modes=(shared) ;;
    pinned|both)
        [ "$ncpus" -ge 2 ] || die "--cpus $cpus needs two CPUs at least (this machine has $ncpus)"
        if [ "$cpus" = both ]; then modes=(shared pinned); else modes=(pinned); fi ;;
    *) die "--cpus: '$cpus' is not shared, pinned or both" ;;
esac
command -v taskset >/dev/null || die "taskset (util-linux) is needed"
for value in "$tasks" "$rtt" "$workers" "$batch" "$submits" "$bg_jobs"; do
    [[ "$value" =~ ^[1-9][0-9]*$ ]] || die "sizes must be positive integers, not '$value'"
done
[ -x "$drover" ] || die "no drover executable at '$drover': build it, or give --drover PATH"
[ -x "$forwarder" ] || die "no forwarder at '$forwarder': build it (cmake --build build" \
                           "--target zmq_forwarder), or give --forwarder PATH"

#   gearmand and its C library, from the Debian mirror if missing
PATH=$PATH:/usr/sbin:/sbin
if ! command -v gearmand >/dev/null || [ ! -f /usr/include/libgearman-1.0/gearman.h ]; then
    as_root=()
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null || die "gearman is not installed and we are not root"
        as_root=(sudo)
    fi
    echo "sidebyside: installing gearman-job-server libgearman-dev" >&2
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        gearman-job-server libgearman-dev >&2 \
    || { "${as_root[@]}" apt-get update -qq >&2 \
         && "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
                gearman-job-server libgearman-dev >&2; } \
    || die "cannot install gearman-job-server libgearman-dev"
fi

tmp=$(mktemp -d -t sidebyside.XXXXXX)
pids=()
#   Stop what we started (by pid) and remove the temporary directory
stop_all () {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    pids=()
}
cleanup () {
    stop_all
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

flags=(-O2 -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter)
read -r -a libs <<< "$(pkg-config --libs gearmand 2>/dev/null || echo -lgearman)"
for program in noop_worker noop_client bg_client; do
    gcc "${flags[@]}" "$here/gearman/$program.c" -o "$tmp/$program" "${libs[@]}" -lm \
        || die "cannot build $program"
done

#   Start gearmand with extra arguments on a free loopback port (in $port)
#   and wait until it accepts a connection; run under ${broker_on[@]}
start_gearmand () {
    #   A free port on loopback: bind port 0 and read what the kernel chose
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') \
        || die "cannot find a free port"
    "${broker_on[@]}" gearmand --listen 127.0.0.1 --port "$port" --log-file "$tmp/gearmand.log" \
             --pid-file "$tmp/gearmand.pid" --verbose ERROR "$@" &
    pids+=($!)
    for attempt in $(seq 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            break
        fi
        kill -0 "${pids[0]}" 2>/dev/null || die "gearmand exited: $(tail -3 "$tmp/gearmand.log" 2>/dev/null)"
        [ "$attempt" -lt 100 ] || die "gearmand does not accept connections on 127.0.0.1:$port"
        sleep 0.1
    done
}

#   Run a benchmark in the background, so that a signal stops it at once
#   (cleanup kills what is in pids); its exit status
run_bench () {
    "$@" &
    pids+=($!)
    local status=0
    wait "${pids[-1]}" || status=$?
    pids=()
    return "$status"
}

#   (a) and (b) on the three, with the CPUs of mode: shared (every process
#   on any CPU) or pinned (each broker process on CPU 0 alone, its clients
#   and workers on the other CPUs). Figures go to $tmp/MODE-NAME.txt.
measure () {
    local mode=$1
    broker_on=()
    load_on=()
    local forwarder_cpu=() drover_cpu=()
    if [ "$mode" = pinned ]; then
        broker_on=(taskset -c 0)
        load_on=(taskset -c "1-$((ncpus - 1))")
        forwarder_cpu=(--broker-cpu 0)
        drover_cpu=(--set broker/cpus=0)
    fi
    start_gearmand
    for _ in $(seq "$workers"); do
        "${load_on[@]}" "$tmp/noop_worker" 127.0.0.1 "$port" &
        pids+=($!)
    done
    echo "sidebyside ($mode): gearmand on 127.0.0.1:$port, $workers workers: $tasks tasks" \
         "in batches of $batch, $rtt round trips" >&2
    "${load_on[@]}" "$tmp/noop_client" 127.0.0.1 "$port" "$tasks" "$batch" "$rtt" \
        > "$tmp/$mode-gearmand.txt" || die "the gearman client failed"
    stop_all

    echo "sidebyside ($mode): zmq_forwarder --tasks $tasks --rtt $rtt --workers $workers" >&2
    run_bench "${load_on[@]}" "$forwarder" --tasks "$tasks" --rtt "$rtt" --workers "$workers" \
        "${forwarder_cpu[@]}" > "$tmp/$mode-forwarder.txt" 2> "$tmp/forwarder.err" \
        || { tail -5 "$tmp/forwarder.err" >&2; die "the forwarder failed"; }

    echo "sidebyside ($mode): drover bench --phases noop,rtt --tasks $tasks --rtt $rtt" \
         "--workers $workers --set broker/durability=off ${drover_cpu[*]}" >&2
    run_bench "${load_on[@]}" "$drover" bench --phases noop,rtt --tasks "$tasks" --rtt "$rtt" \
        --workers "$workers" --set broker/durability=off "${drover_cpu[@]}" \
        > "$tmp/$mode-drover.txt" 2> "$tmp/drover.err" \
        || { tail -5 "$tmp/drover.err" >&2; die "drover bench failed"; }
}

for mode in "${modes[@]}"; do
    measure "$mode"
done

#   Durable background jobs: gearmand keeps each in its SQLite queue (one
#   transaction a job) before it answers JOB_CREATED; no worker takes them
broker_on=()
start_gearmand -q libsqlite3 --libsqlite3-db="$tmp/gearmand-queue.db"
echo "sidebyside: gearmand -q libsqlite3 on 127.0.0.1:$port: $bg_jobs background jobs one" \
     "at a time, then $bg_jobs in batches of $batch" >&2
"$tmp/bg_client" 127.0.0.1 "$port" "$bg_jobs" "$batch" > "$tmp/durable-gearmand.txt" \
    || die "the gearman background client failed"
stop_all

echo "sidebyside: drover bench --phases rtt,durable,curve --rtt $rtt --tasks $tasks" \
     "--workers $workers --submits $submits (drover's default durability, full)" >&2
run_bench "$drover" bench --phases rtt,durable,curve --tasks "$tasks" --rtt "$rtt" \
    --workers "$workers" --submits "$submits" \
    > "$tmp/durable-drover.txt" 2> "$tmp/drover.err" \
    || { tail -5 "$tmp/drover.err" >&2; die "drover bench failed"; }

#   The tables: (a) and (b) on each of the three in each mode, with drover /
#   gearmand and drover / forwarder; then durable submits (the forwarder
#   keeps nothing): drover's go flat out (window 1000), gearmand's one at a
#   time and then in batches, the same drover figure beside each; then the
#   rest of drover's figures
table () {
    awk -v title="$1" '
        FNR == 1 { file++ }
        file == 1 { drover [$1] = $2; unit [$1] = $3 }
        file == 2 { gearmand [$1] = $2 }
        file == 3 { forwarder [$1] = $2 }
        END {
            print title
            n = split ("noop_throughput rtt_p50 rtt_p90 rtt_p99 rtt_p999", names, " ")
            missing = 0
            for (i = 1; i <= n; i++) {
                name = names [i]
                if (!(name in drover) || gearmand [name] + 0 <= 0 || forwarder [name] + 0 <= 0) {
                    printf "%-22s missing\n", name
                    missing = 1
                    continue
                }
                printf "%-22s %11.1f %11.1f %11.1f %9.2f %9.2f  %s\n", name, drover [name],
                       gearmand [name], forwarder [name], drover [name] / gearmand [name],
                       drover [name] / forwarder [name], unit [name]
            }
            exit missing
        }' "$2" "$3" "$4"
}
printf "%-22s %11s %11s %11s %9s %9s\n" figure drover gearmand forwarder /gearmand /forwarder
missing=0
for mode in "${modes[@]}"; do
    case $mode in
        shared) title="shared: every process on any CPU; drover with durability off (gearmand keeps no foreground job)" ;;
        pinned) title="pinned: each broker process on CPU 0 alone, its clients and workers on CPUs 1-$((ncpus - 1)); drover with durability off" ;;
    esac
    table "$title" "$tmp/$mode-drover.txt" "$tmp/$mode-gearmand.txt" "$tmp/$mode-forwarder.txt" \
        || missing=1
done
awk '
    FNR == 1 { file++ }
    file == 1 { drover [$1] = $2; unit [$1] = $3 }
    file == 2 { gearmand [$1] = $2 }
    END {
        print "durable: drover with durability full (its default), every process on any CPU"
        drover ["durable_submit_batched"] = drover ["durable_submit_rate"]
        unit ["durable_submit_batched"] = unit ["durable_submit_rate"]
        missing = 0
        n = split ("durable_submit_rate durable_submit_batched", names, " ")
        for (i = 1; i <= n; i++) {
            name = names [i]
            if (!(name in drover) || gearmand [name] + 0 <= 0) {
                printf "%-22s missing\n", name
                missing = 1
                continue
            }
            printf "%-22s %11.1f %11.1f %11s %9.1f %9s  %s\n", name, drover [name],
                   gearmand [name], "-", drover [name] / gearmand [name], "-", unit [name]
        }
        for (name in drover)
            if (name ~ /^rtt_p(50|99)$/)
                printf "drover %-24s %11.1f %s\n", name "_full", drover [name], unit [name]
        for (name in drover)
            if (name ~ /_off$|_full$|_pct$|_curve$|_plain$/)
                printf "drover %-24s %11.1f %s\n", name, drover [name], unit [name]
        print "ratios = drover / peer: above 1 is better for throughput, below 1 for round trips"
        print "durable_submit_rate: drover with durability full, a window of 1000, against"
        print "gearmand -q libsqlite3, gearman_client_do_background one job at a time;"
        print "durable_submit_batched: the same drover figure against gearmand taking --batch"
        print "background jobs at once (gearman_client_add_task_background + run_tasks)"
        exit missing
    }' "$tmp/durable-drover.txt" "$tmp/durable-gearmand.txt" || missing=1
exit "$missing"
