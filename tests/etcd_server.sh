#!/bin/sh
#   etcd_server.sh - a real single-member etcd on 127.0.0.1 for one test
#
#   etcd_server.sh start DIR CLIENT_PORT PEER_PORT
#       starts etcd with its data in DIR/data (DIR is made if missing), its
#       log in DIR/etcd.log, its pid in DIR/etcd.pid, listening only on
#       127.0.0.1; prints http://127.0.0.1:CLIENT_PORT on stdout and exits
#       0 once `etcdctl endpoint health` says healthy and the member that
#       answers is the one started here (30 s at most, else 1)
#   etcd_server.sh stop DIR [keep]
#       stops it (SIGTERM, SIGKILL after 10 s) and removes DIR (unless
#       "keep": a failed test keeps the log and the data)
#   etcd_server.sh pause DIR | resume DIR
#       SIGSTOP / SIGCONT the server: etcd stops answering but keeps its
#       connections, as a hung or partitioned server does
#   etcd_server.sh restart DIR
#       SIGKILL the server (every connection, a watch's too, is cut) and
#       start it again on the same ports with the same data (its keys and
#       leases kept), as a crashed member that comes back; prints the URL
#       and exits 0 once healthy, as start does
#
#   Needs Debian's etcd-server (/usr/bin/etcd, etcdctl). Never touches a
#   system service: everything lives under DIR.
set -u

usage () {
    echo "usage: $0 start DIR CLIENT_PORT PEER_PORT | stop DIR [keep] | pause DIR | resume DIR" >&2
    exit 2
}

s_pid () {
    [ -f "$1/etcd.pid" ] && cat "$1/etcd.pid"
}

s_alive () {
    [ -n "$1" ] && kill -0 "$1" 2>/dev/null
}

s_start () {
    dir=$1 client=$2 peer=$3 keep_data=${4:-}
    etcd=$(command -v etcd || true)
    etcdctl=$(command -v etcdctl || true)
    if [ -z "$etcd" ] || [ -z "$etcdctl" ]; then
        echo "etcd_server.sh: etcd or etcdctl not found: install Debian's etcd-server (apt-get install etcd-server etcd-client)" >&2
        exit 1
    fi
    mkdir -p "$dir" || exit 1
    if [ "$keep_data" = keep ]; then
        name=$(cat "$dir/name")         #  the same member, its data kept
    else
        rm -rf "$dir/data"              #  a fresh member: a retry starts clean
        #   a name of our own: the health check below must not be satisfied by
        #   another test's etcd that holds the port we were given
        name=drover-test-$$
        echo "$name" > "$dir/name"
        echo "$client $peer" > "$dir/ports"
    fi
    url=http://127.0.0.1:$client
    peer_url=http://127.0.0.1:$peer
    state=new
    [ "$keep_data" = keep ] && state=existing
    #   setsid and every descriptor redirected: the caller reading our
    #   stdout sees its end when we exit, not when etcd does
    setsid "$etcd" --name "$name" --data-dir "$dir/data" \
        --listen-client-urls "$url" --advertise-client-urls "$url" \
        --listen-peer-urls "$peer_url" --initial-advertise-peer-urls "$peer_url" \
        --initial-cluster "$name=$peer_url" --initial-cluster-state $state \
        </dev/null >>"$dir/etcd.log" 2>&1 &
    echo $! > "$dir/etcd.pid"
    pid=$!
    tries=0
    while [ $tries -lt 300 ]; do
        if ! s_alive "$pid"; then
            echo "etcd_server.sh: etcd exited at start; its log:" >&2
            tail -20 "$dir/etcd.log" >&2
            exit 1
        fi
        if ETCDCTL_API=3 "$etcdctl" --endpoints "$url" --dial-timeout 1s --command-timeout 1s \
                endpoint health >/dev/null 2>&1; then
            if ETCDCTL_API=3 "$etcdctl" --endpoints "$url" --dial-timeout 1s \
                    --command-timeout 1s member list 2>/dev/null | grep -q ", $name,"; then
                echo "$url"
                exit 0
            fi
            echo "etcd_server.sh: another etcd answers on $url (not $name); ours:" >&2
            tail -5 "$dir/etcd.log" >&2
            kill -KILL "$pid" 2>/dev/null
            exit 1
        fi
        sleep 0.1
        tries=$((tries + 1))
    done
    echo "etcd_server.sh: etcd not healthy after 30 s on $url; its log:" >&2
    tail -20 "$dir/etcd.log" >&2
    exit 1
}

s_stop () {
    dir=$1 keep=$2
    pid=$(s_pid "$dir")
    if s_alive "$pid"; then
        kill -CONT "$pid" 2>/dev/null       #  a paused server cannot end
        kill -TERM "$pid" 2>/dev/null
        tries=0
        while s_alive "$pid" && [ $tries -lt 100 ]; do
            sleep 0.1
            tries=$((tries + 1))
        done
        s_alive "$pid" && kill -KILL "$pid" 2>/dev/null
    fi
    [ "$keep" = keep ] || rm -rf "$dir"
    exit 0
}

s_restart () {
    dir=$1
    pid=$(s_pid "$dir")
    if ! s_alive "$pid" || [ ! -f "$dir/ports" ]; then
        echo "etcd_server.sh: no etcd running for $dir" >&2
        exit 1
    fi
    kill -CONT "$pid" 2>/dev/null
    kill -KILL "$pid"
    while s_alive "$pid"; do
        sleep 0.05
    done
    set -- $(cat "$dir/ports")
    s_start "$dir" "$1" "$2" keep
}

s_signal () {
    pid=$(s_pid "$1")
    if ! s_alive "$pid"; then
        echo "etcd_server.sh: no etcd running for $1" >&2
        exit 1
    fi
    kill "-$2" "$pid"
}

[ $# -ge 2 ] || usage
case "$1" in
    start)  [ $# -eq 4 ] || usage; s_start "$2" "$3" "$4" ;;
    stop)   s_stop "$2" "${3:-}" ;;
    pause)  s_signal "$2" STOP ;;
    resume) s_signal "$2" CONT ;;
    restart) s_restart "$2" ;;
    *)      usage ;;
esac
