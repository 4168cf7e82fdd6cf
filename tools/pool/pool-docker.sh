#!/bin/sh
#   pool-docker.sh - a drover pool command driver: each instance is a
#   container (Docker or Podman) running `drover worker`
#
#   In the broker's config:
#       pool
#           driver = command
#           command = /path/to/tools/pool/pool-docker.sh
#   drover runs it as (docs/pool.md, "Pool drivers"):
#       pool-docker.sh create TYPE NAME     docker run -d --name NAME, labelled
#                                           drover-pool, drover-type, drover-idle
#       pool-docker.sh list                 docker ps -a --filter label=drover-pool=POOL
#       pool-docker.sh tag NAME BEHAVIOUR   the idle tag, in a state file (below)
#       pool-docker.sh destroy NAME         docker rm -f NAME (gone already: done)
#       pool-docker.sh probe NAME           (pool/probe = on) the container is this
#                                           pool's and running; with
#                                           DROVER_DOCKER_PROBE set, that command
#                                           also succeeds in it (docker exec)
#   with DROVER_POOL, DROVER_BROKER and, for create, DROVER_POOL_TYPE,
#   DROVER_POOL_PROCS, DROVER_POOL_MEMORY, DROVER_POOL_LABELS,
#   DROVER_POOL_IDLE, DROVER_WORKER_ID in its environment. Exit 0 done,
#   anything else failed (a container runtime has no quota: never 10 or
#   11); the last line of stderr says why.
#
#   Settings, from the broker's environment:
#       DROVER_DOCKER           the CLI: docker (default) or podman
#       DROVER_DOCKER_IMAGE     an image with drover on its PATH (drover:latest)
#       DROVER_DOCKER_ARGS      more `run` arguments, split on blanks
#                               (default --network host, so that a broker on
#                               127.0.0.1 is reachable)
#       DROVER_DOCKER_LIMITS    1: cap each container at its type's procs
#                               and memory (--cpus, --memory)
#       DROVER_DOCKER_STATE     where idle tags are kept
#                               ($HOME/.drover-pool-docker)
#       DROVER_DOCKER_PROBE     a shell command the probe runs in the
#                               container (`docker exec NAME sh -c ...`):
#                               exit 0 passes; unset, running is enough
#
#   The idle tag: a container's labels cannot change after it is created
#   (docker container update does not touch them), so the behaviour given
#   at create is its drover-idle label, and a later `tag` writes
#   $DROVER_DOCKER_STATE/POOL/NAME, which list prefers to the label. The
#   broker runs this script, so the state stays with it across its
#   restarts; destroy removes it.
set -u
docker=${DROVER_DOCKER:-docker}
image=${DROVER_DOCKER_IMAGE:-drover:latest}
args=${DROVER_DOCKER_ARGS:---network host}
pool=${DROVER_POOL:?DROVER_POOL is not set: drover runs this script}
state=${DROVER_DOCKER_STATE:-${HOME:-/tmp}/.drover-pool-docker}/$pool
op=${1:-}

#   fail MESSAGE: say why on stderr, exit 1
fail () {
    echo "pool-docker: $*" >&2
    exit 1
}

#   run CLI ARGS...: run the container CLI; on failure, repeat its last
#   stderr line and exit 1 (its own status could read as 10 or 11)
run () {
    errors=$(mktemp) || fail "mktemp failed"
    if "$docker" "$@" 2>"$errors"; then
        rm -f "$errors"
        return 0
    fi
    message=$(grep -v '^[[:space:]]*$' "$errors" | tail -n 1)
    rm -f "$errors"
    case $message in
        *"No such container"*|*"no such container"*)
            [ "$1" = rm ] && return 0;;
    esac
    fail "$docker $1: ${message:-failed}"
}

case $op in
    create)
        [ $# -eq 3 ] || fail "usage: create TYPE NAME"
        type=$2 name=$3
        set -- run -d --name "$name" --label "drover-pool=$pool" \
            --label "drover-type=$type" --label "drover-idle=${DROVER_POOL_IDLE:-run}"
        if [ "${DROVER_DOCKER_LIMITS:-0}" = 1 ]; then
            set -- "$@" --cpus "$DROVER_POOL_PROCS" --memory "$DROVER_POOL_MEMORY"
        fi
        # shellcheck disable=SC2086     # DROVER_DOCKER_ARGS is split on purpose
        set -- "$@" $args "$image" drover worker --broker "$DROVER_BROKER" \
            --id "$name" --procs "$DROVER_POOL_PROCS"
        [ "${DROVER_POOL_MEMORY:-0}" != 0 ] && set -- "$@" --mem "$DROVER_POOL_MEMORY"
        labels=${DROVER_POOL_LABELS:-}
        while [ -n "$labels" ]; do
            label=${labels%%,*}
            [ "$label" = "$labels" ] && labels= || labels=${labels#*,}
            [ -n "$label" ] && set -- "$@" --label "$label"
        done
        run "$@" >/dev/null
        rm -f "$state/$name";;
    list)
        [ $# -eq 1 ] || fail "usage: list"
        listing=$(mktemp) || fail "mktemp failed"
        run ps -a --filter "label=drover-pool=$pool" \
            --format '{{.Names}} {{.Label "drover-type"}} {{.Label "drover-idle"}} {{.State}}' \
            >"$listing" || exit 1
        while read -r name type idle status; do
            [ -n "$name" ] || continue
            [ -f "$state/$name" ] && idle=$(cat "$state/$name")
            echo "$name ${type:--} drover-pool=$pool drover-idle=${idle:-run} state=${status:-unknown}"
        done <"$listing"
        rm -f "$listing";;
    tag)
        [ $# -eq 3 ] || fail "usage: tag NAME BEHAVIOUR"
        name=$2 idle=$3
        case $idle in run|hold|drain) ;; *) fail "behaviour '$idle': run, hold or drain";; esac
        found=$(run ps -a --filter "label=drover-pool=$pool" --filter "name=^$name\$" \
                    --format '{{.Names}}') || exit 1
        [ "$found" = "$name" ] || fail "no container $name in pool $pool"
        mkdir -p "$state" || fail "cannot make $state"
        if ! { echo "$idle" >"$state/.$name.tmp" && mv "$state/.$name.tmp" "$state/$name"; }
        then
            fail "cannot write $state/$name"
        fi;;
    destroy)
        [ $# -eq 2 ] || fail "usage: destroy NAME"
        name=$2
        run rm -f "$name" >/dev/null
        rm -f "$state/$name";;
    probe)
        [ $# -eq 2 ] || fail "usage: probe NAME"
        name=$2
        found=$(run ps -a --filter "label=drover-pool=$pool" --filter "name=^$name\$" \
                    --format '{{.Names}} {{.State}}') || exit 1
        [ -n "$found" ] || fail "no container $name in pool $pool"
        status=${found#* }
        [ "$status" = running ] || fail "container $name is ${status:-in no state}, not running"
        if [ -n "${DROVER_DOCKER_PROBE:-}" ]; then
            run exec "$name" sh -c "$DROVER_DOCKER_PROBE" >/dev/null
        fi;;
    *)
        fail "unknown operation '$op' (create, list, tag, destroy or probe)";;
esac
exit 0
