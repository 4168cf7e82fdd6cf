#!/bin/sh
#   taken_port_server.sh - plays a server whose first start finds its port
#   taken by a test running beside it (test_testutil_spawn)
#
#   taken_port_server.sh start DIR PORT
#       the first start in DIR fails as a server that cannot bind does
#       (notes PORT in DIR/taken); a later one prints tcp://127.0.0.1:PORT
#       and exits 0
#   taken_port_server.sh stop DIR
#       removes DIR
set -u
case "${1:-}" in
start)
    [ $# -eq 3 ] || exit 2
    mkdir -p "$2" || exit 1
    if [ ! -f "$2/taken" ]; then
        echo "$3" > "$2/taken"
        echo "taken_port_server.sh: bind 127.0.0.1:$3: address already in use" >&2
        exit 1
    fi
    echo "tcp://127.0.0.1:$3"
    ;;
stop)
    rm -rf "$2"
    ;;
*)
    exit 2
    ;;
esac
