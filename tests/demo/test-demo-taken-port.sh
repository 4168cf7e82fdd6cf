#!/bin/sh
#   test-demo-taken-port.sh - the demo on a port another process holds: its
#   broker cannot bind and exits, and the demo must say so and stop, not
#   wait for an answer that never comes.
#   Usage: test-demo-taken-port.sh SOURCE_DIR DROVER (ctest: test_demo_taken_port)
set -u
source_dir=${1:?usage: test-demo-taken-port.sh SOURCE_DIR DROVER}
drover=${2:?usage: test-demo-taken-port.sh SOURCE_DIR DROVER}
work=$(mktemp -d /tmp/drover-demo-port-XXXXXX) || exit 1

#   A plain TCP listener on a free loopback port holds it for the test
python3 -c '
import socket, sys, time
s = socket.socket (); s.bind (("127.0.0.1", 0)); s.listen (8)
print (s.getsockname () [1], flush=True)
time.sleep (120)' >"$work/port" &
holder=$!
tries=0
while [ ! -s "$work/port" ] && [ $tries -lt 100 ]; do sleep 0.05; tries=$((tries + 1)); done
port=$(cat "$work/port")
if [ -z "$port" ]; then echo "FAIL no port held"; kill $holder; exit 1; fi

started=$(date +%s)
DROVER_DEMO_PORT=$port timeout 60 "$source_dir/tools/demo/demo.sh" "$drover" \
    >"$work/out" 2>&1
rc=$?
took=$(( $(date +%s) - started ))
kill $holder 2>/dev/null

failures=0
if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
    echo "FAIL the demo exited $rc after $took s (124: still waiting at 60 s)"
    failures=$((failures + 1))
else
    echo "ok   the demo exited $rc after $took s"
fi
if grep -q "the broker exited" "$work/out"; then echo "ok   it says the broker exited"
else echo "FAIL it does not say the broker exited"; tail -n 5 "$work/out"; failures=$((failures + 1))
fi
rm -rf "$work"
[ $failures -eq 0 ]
