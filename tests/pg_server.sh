#!/bin/sh
#   pg_server.sh - a real PostgreSQL server for one test, on loopback only
#
#   pg_server.sh start DIR PORT   make DIR (if missing), initdb into DIR/data
#                                 (kept if it is already there: a start after
#                                 halt serves the same data), start a server
#                                 listening only on 127.0.0.1:PORT and a socket
#                                 in DIR, fsync and synchronous_commit on, no
#                                 password (trust, local only); create the
#                                 database drover; print its URI
#                                 postgresql://drover@127.0.0.1:PORT/drover and
#                                 exit 0 once it accepts connections (30 s at most)
#   pg_server.sh halt DIR         stop the server at once (immediate: as a crash),
#                                 keeping DIR: start DIR PORT serves it again
#   pg_server.sh stop DIR         stop the server (fast) and remove DIR
#   pg_server.sh pause DIR        SIGSTOP the server's processes (it hangs)
#   pg_server.sh resume DIR       SIGCONT them
#
#   As root the server runs as the user postgres (PostgreSQL refuses root):
#   DIR is given to it. The binaries are found under /usr/lib/postgresql/*/bin
#   (Debian's postgresql package), else on the PATH. The server's log is
#   DIR/server.log (a test keeps DIR when it fails).

set -u

usage () {
    echo "usage: $0 start DIR PORT | halt DIR | stop DIR | pause DIR | resume DIR" >&2
    exit 2
}

fail () {
    echo "pg_server.sh: $*" >&2
    exit 1
}

#   The directory holding initdb, pg_ctl, pg_isready: the newest Debian
#   version, else wherever the PATH has them
find_bin () {
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
            echo "$dir"
            return 0
        fi
    done
    initdb=$(command -v initdb 2>/dev/null) || return 1
    dirname "$initdb"
}

#   Run a command as the server's user: postgres when we are root
as_server () {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

[ $# -ge 2 ] || usage
command=$1
dir=$2
bin=$(find_bin) || fail "PostgreSQL is not installed: install it (Debian: apt-get install postgresql)"

case "$command" in
start)
    [ $# -eq 3 ] || usage
    port=$3
    mkdir -p "$dir" || fail "cannot make $dir"
    dir=$(cd "$dir" && pwd)
    if [ "$(id -u)" = 0 ]; then
        id postgres >/dev/null 2>&1 || fail "running as root needs the user postgres (Debian's postgresql package makes it)"
        chown postgres "$dir" || fail "cannot give $dir to postgres"
        chmod 0700 "$dir"
    fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        #   --no-sync: initdb's own files only; the server fsyncs every commit
        as_server "$bin/initdb" -D "$dir/data" -U drover -A trust -E UTF8 --locale=C \
            --no-sync >"$dir/initdb.log" 2>&1 || fail "initdb failed: see $dir/initdb.log"
    fi
    as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
        -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$dir -c fsync=on -c synchronous_commit=on -c max_connections=40 -c shared_buffers=32MB" \
        start >"$dir/pg_ctl.log" 2>&1 || fail "the server did not start: see $dir/server.log"
    "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -t 30 || fail "the server does not answer on 127.0.0.1:$port: see $dir/server.log"
    exists=$(as_server "$bin/psql" -X -A -t -h 127.0.0.1 -p "$port" -U drover -d postgres \
             -c "SELECT 1 FROM pg_database WHERE datname = 'drover'" 2>>"$dir/pg_ctl.log")
    if [ "$exists" != 1 ]; then
        as_server "$bin/createdb" -h 127.0.0.1 -p "$port" -U drover drover \
            >>"$dir/pg_ctl.log" 2>&1 || fail "cannot create the database drover: see $dir/pg_ctl.log"
    fi
    echo "postgresql://drover@127.0.0.1:$port/drover"
    ;;
halt)
    [ -d "$dir/data" ] || fail "no server in $dir"
    as_server "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1
    exit 0
    ;;
stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
        #   Resumed first: a paused server cannot stop
        pid=$(head -1 "$dir/data/postmaster.pid")
        kill -s CONT "$pid" $(pgrep -P "$pid") 2>/dev/null
        as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 ||
            as_server "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1
    fi
    rm -rf "$dir"
    ;;
pause|resume)
    [ -f "$dir/data/postmaster.pid" ] || fail "no server running in $dir"
    pid=$(head -1 "$dir/data/postmaster.pid")
    signal=STOP
    [ "$command" = resume ] && signal=CONT
    #   The postmaster and its children (backends, writers) share its group
    #   only when pg_ctl made it a leader: signal each process by parent
    kill -s $signal "$pid" $(pgrep -P "$pid") || fail "cannot signal the server ($pid)"
    ;;
*)
    usage
    ;;
esac
