#!/bin/sh
#   test-driver.sh - a pool command driver for the tests, steered by files
#
#   drover runs it as `test-driver.sh create TYPE NAME | list | tag NAME
#   BEHAVIOUR | destroy NAME | probe NAME` (docs/pool.md, Pool drivers; probe
#   with pool/probe on: passes while the instance's worker lives). Everything it does
#   happens in $DROVER_TEST_DIR:
#
#     calls           each call appended as a line: OP ARGS...
#     calls.time      the same, each line after the time: MSEC OP ARGS...
#     env.OP          the DROVER_ variables of the last call of OP, sorted
#     OP.cue          how the next calls of OP end, until the test changes
#                     it (first line):
#                       ok                succeed (the default)
#                       fail MESSAGE      noise, then MESSAGE on stderr; exit 1
#                       exit N MESSAGE    MESSAGE on stderr; exit N
#                       hang              start `sleep` (its pid in
#                                         hang.pid) and wait for it
#                       noworker          create: record the instance, start
#                                         no worker (it never registers)
#     list.out        if there, list prints it as it is
#     instances/NAME  an instance: its list line; NAME.pid its worker's pid
#
#   With $DROVER_TEST_BIN (a drover binary) set, create starts
#   `drover worker --id NAME` in a session of its own, its output in
#   NAME.log; list shows an instance while its worker lives; destroy sends
#   it SIGTERM. Without, instances are only files.
set -u
dir=${DROVER_TEST_DIR:?DROVER_TEST_DIR names the test directory}
op=${1:-}
cue=ok
message=
code=0
if [ -f "$dir/$op.cue" ]; then
    read -r cue message <"$dir/$op.cue" || true
fi
#   Logged after the cue is read: a test that sees the call may change it
echo "$*" >>"$dir/calls"
echo "$(date +%s%3N) $*" >>"$dir/calls.time"
env | grep "^DROVER_" | LC_ALL=C sort >"$dir/env.$op"
mkdir -p "$dir/instances"
case $cue in
    fail)
        echo "test-driver: some noise first" >&2
        echo "$message" >&2
        exit 1;;
    exit)
        code=${message%% *}
        [ "$code" = "$message" ] && message= || message=${message#* }
        [ -n "$message" ] && echo "$message" >&2
        exit "$code";;
    hang)
        sleep 600 &
        echo $! >"$dir/hang.pid"
        wait
        exit 0;;
esac

#   alive NAME: true if the instance has no worker or its worker lives
alive () {
    [ -f "$dir/instances/$1.pid" ] || return 0
    pid=$(cat "$dir/instances/$1.pid")
    [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--id $1 "
}

case $op in
    create)
        type=$2 name=$3
        echo "$name $type drover-pool=$DROVER_POOL drover-idle=$DROVER_POOL_IDLE" \
            >"$dir/instances/$name"
        if [ -n "${DROVER_TEST_BIN:-}" ] && [ "$cue" != noworker ]; then
            setsid "$DROVER_TEST_BIN" worker --broker "$DROVER_BROKER" --id "$name" \
                --procs "$DROVER_POOL_PROCS" --heartbeat 200 \
                </dev/null >>"$dir/$name.log" 2>&1 &
            echo $! >"$dir/instances/$name.pid"
        fi;;
    list)
        if [ -f "$dir/list.out" ]; then
            cat "$dir/list.out"
            exit 0
        fi
        for file in "$dir"/instances/*; do
            case $file in *.pid|*'*') continue;; esac
            name=${file##*/}
            alive "$name" && cat "$file"
        done;;
    tag)
        name=$2 idle=$3
        [ -f "$dir/instances/$name" ] || { echo "no instance $name" >&2; exit 1; }
        sed "s/drover-idle=[a-z]*/drover-idle=$idle/" "$dir/instances/$name" \
            >"$dir/instances/.$name.tmp"
        mv "$dir/instances/.$name.tmp" "$dir/instances/$name";;
    probe)
        name=$2
        if [ ! -f "$dir/instances/$name" ] || ! alive "$name"; then
            echo "no worker for $name" >&2
            exit 1
        fi;;
    destroy)
        name=$2
        if [ -f "$dir/instances/$name.pid" ] && alive "$name"; then
            kill "$(cat "$dir/instances/$name.pid")"
        fi
        rm -f "$dir/instances/$name" "$dir/instances/$name.pid";;
    *)
        echo "test-driver: unknown operation '$op'" >&2
        exit 2;;
esac
exit 0
