#!/bin/sh
#   pool-aws.sh - a drover pool command driver: each instance is an EC2
#   instance (the AWS CLI) whose user data starts `drover worker`
#
#   In the broker's config:
#       pool
#           driver = command
#           command = /path/to/tools/pool/pool-aws.sh
#   drover runs it as (docs/pool.md, "Pool drivers"):
#       pool-aws.sh create TYPE NAME    aws ec2 run-instances, tagged Name=NAME,
#                                       drover-pool, drover-type, drover-idle
#       pool-aws.sh list                aws ec2 describe-instances, filtered on
#                                       tag:drover-pool, not terminated
#       pool-aws.sh tag NAME BEHAVIOUR  aws ec2 create-tags drover-idle=BEHAVIOUR
#       pool-aws.sh destroy NAME        aws ec2 terminate-instances (none: done)
#       pool-aws.sh probe NAME          (pool/probe = on) aws ec2
#                                       describe-instance-status: running, and
#                                       neither status check impaired
#   with DROVER_POOL, DROVER_BROKER and, for create, DROVER_POOL_TYPE,
#   DROVER_POOL_PROCS, DROVER_POOL_MEMORY, DROVER_POOL_LABELS,
#   DROVER_POOL_IDLE, DROVER_WORKER_ID in its environment.
#   Exit status: 0 done; 10 quota exceeded (InstanceLimitExceeded,
#   VcpuLimitExceeded, InsufficientInstanceCapacity: the pool makes no
#   create for a while); 11 rate limited (RequestLimitExceeded,
#   Throttling); 1 anything else. The last line of stderr says why.
#
#   Settings, from the broker's environment (the AWS CLI's own, such as
#   AWS_PROFILE and AWS_REGION, pass through):
#       DROVER_AWS              the CLI (aws)
#       DROVER_AWS_AMI          the image: drover installed, on the PATH (required)
#       DROVER_AWS_TYPES        drover type -> EC2 instance type, as
#                               "small=m6i.large,big=c6i.4xlarge"; a type not
#                               named is used as the EC2 type itself
#       DROVER_AWS_SUBNET       --subnet-id, if set
#       DROVER_AWS_SECURITY_GROUPS  --security-group-ids (blank separated), if set
#       DROVER_AWS_KEY_NAME     --key-name, if set
#       DROVER_AWS_WORKER_ARGS  more `drover worker` flags (--key, --server-key...)
#   The broker's endpoint (pool/broker) must be one the instances reach.
set -u
aws=${DROVER_AWS:-aws}
pool=${DROVER_POOL:?DROVER_POOL is not set: drover runs this script}
op=${1:-}
alive=Name=instance-state-name,Values=pending,running,stopping,stopped

#   fail MESSAGE: say why on stderr, exit 1
fail () {
    echo "pool-aws: $*" >&2
    exit 1
}

#   ec2 ARGS...: run `aws ec2 ARGS...`; on failure repeat its last stderr
#   line and exit 10 (quota), 11 (rate limited) or 1
ec2 () {
    errors=$(mktemp) || fail "mktemp failed"
    if "$aws" ec2 "$@" 2>"$errors"; then
        rm -f "$errors"
        return 0
    fi
    message=$(grep -v '^[[:space:]]*$' "$errors" | tail -n 1)
    rm -f "$errors"
    echo "pool-aws: ec2 $1: ${message:-failed}" >&2
    case $message in
        *InstanceLimitExceeded*|*VcpuLimitExceeded*|*InsufficientInstanceCapacity*)
            exit 10;;
        *RequestLimitExceeded*|*Throttling*)
            exit 11;;
    esac
    exit 1
}

#   instance_id NAME: the id of the live instance of the pool named NAME, "" if none
instance_id () {
    ids=$(ec2 describe-instances \
        --filters "Name=tag:drover-pool,Values=$pool" "Name=tag:Name,Values=$1" "$alive" \
        --query 'Reservations[].Instances[].InstanceId' --output text) || exit $?
    [ "$ids" = None ] && ids=
    echo "$ids"
}

#   ec2_type TYPE: the EC2 instance type of a drover type
ec2_type () {
    map=${DROVER_AWS_TYPES:-}
    while [ -n "$map" ]; do
        pair=${map%%,*}
        [ "$pair" = "$map" ] && map= || map=${map#*,}
        [ "${pair%%=*}" = "$1" ] && { echo "${pair#*=}"; return; }
    done
    echo "$1"
}

#   quote WORD: WORD quoted for sh
quote () {
    printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

case $op in
    create)
        [ $# -eq 3 ] || fail "usage: create TYPE NAME"
        type=$2 name=$3
        [ -n "${DROVER_AWS_AMI:-}" ] || fail "DROVER_AWS_AMI is not set"
        idle=${DROVER_POOL_IDLE:-run}
        #   The worker, started at boot by cloud-init
        worker="drover worker --broker $(quote "$DROVER_BROKER") --id $(quote "$name")"
        worker="$worker --procs $(quote "$DROVER_POOL_PROCS")"
        [ "${DROVER_POOL_MEMORY:-0}" != 0 ] && worker="$worker --mem $(quote "$DROVER_POOL_MEMORY")"
        labels=${DROVER_POOL_LABELS:-}
        while [ -n "$labels" ]; do
            label=${labels%%,*}
            [ "$label" = "$labels" ] && labels= || labels=${labels#*,}
            [ -n "$label" ] && worker="$worker --label $(quote "$label")"
        done
        worker="$worker ${DROVER_AWS_WORKER_ARGS:-}"
        userdata=$(printf '#!/bin/sh\nnohup %s >/var/log/drover-worker.log 2>&1 &\n' "$worker")
        tags="{Key=Name,Value=$name},{Key=drover-pool,Value=$pool}"
        tags="$tags,{Key=drover-type,Value=$type},{Key=drover-idle,Value=$idle}"
        set -- run-instances --image-id "$DROVER_AWS_AMI" --instance-type "$(ec2_type "$type")" \
            --count 1 --user-data "$userdata" \
            --tag-specifications "ResourceType=instance,Tags=[$tags]"
        [ -n "${DROVER_AWS_SUBNET:-}" ] && set -- "$@" --subnet-id "$DROVER_AWS_SUBNET"
        # shellcheck disable=SC2086     # a list of group ids
        [ -n "${DROVER_AWS_SECURITY_GROUPS:-}" ] \
            && set -- "$@" --security-group-ids $DROVER_AWS_SECURITY_GROUPS
        [ -n "${DROVER_AWS_KEY_NAME:-}" ] && set -- "$@" --key-name "$DROVER_AWS_KEY_NAME"
        ec2 "$@" --query 'Instances[0].InstanceId' --output text >/dev/null;;
    list)
        [ $# -eq 1 ] || fail "usage: list"
        # shellcheck disable=SC2016     # backquotes are JMESPath's, not the shell's
        listing=$(ec2 describe-instances \
            --filters "Name=tag:drover-pool,Values=$pool" "$alive" \
            --query 'Reservations[].Instances[].[InstanceId,State.Name,Tags[?Key==`Name`]|[0].Value,Tags[?Key==`drover-type`]|[0].Value,Tags[?Key==`drover-idle`]|[0].Value]' \
            --output text) || exit $?
        echo "$listing" | while read -r id status name type idle; do
            if [ -z "$id" ] || [ -z "${name:-}" ] || [ "$name" = None ]; then
                continue                #  not ours to name: no Name tag
            fi
            [ "${type:-None}" = None ] && type=-
            [ "${idle:-None}" = None ] && idle=run
            echo "$name $type drover-pool=$pool drover-idle=$idle instance-id=$id state=$status"
        done;;
    tag)
        [ $# -eq 3 ] || fail "usage: tag NAME BEHAVIOUR"
        name=$2 idle=$3
        case $idle in run|hold|drain) ;; *) fail "behaviour '$idle': run, hold or drain";; esac
        id=$(instance_id "$name") || exit $?
        [ -n "$id" ] || fail "no instance $name in pool $pool"
        # shellcheck disable=SC2086     # one id, or several if the name was reused
        ec2 create-tags --resources $id --tags "Key=drover-idle,Value=$idle";;
    destroy)
        [ $# -eq 2 ] || fail "usage: destroy NAME"
        id=$(instance_id "$2") || exit $?
        [ -n "$id" ] || exit 0         #  gone already
        # shellcheck disable=SC2086
        ec2 terminate-instances --instance-ids $id >/dev/null;;
    probe)
        #   The worker registered, so the machine booted: what EC2 says of
        #   it must not contradict that (its status checks may still be
        #   initializing, which takes minutes; impaired fails)
        [ $# -eq 2 ] || fail "usage: probe NAME"
        name=$2
        id=$(instance_id "$name") || exit $?
        [ -n "$id" ] || fail "no instance $name in pool $pool"
        # shellcheck disable=SC2086     # one id, or several if the name was reused
        statuses=$(ec2 describe-instance-status --instance-ids $id --include-all-instances \
            --query 'InstanceStatuses[].[InstanceId,InstanceState.Name,InstanceStatus.Status,SystemStatus.Status]' \
            --output text) || exit $?
        [ -n "$statuses" ] || fail "instance $name ($id): no status"
        echo "$statuses" | {
            while read -r iid status instance system; do
                [ "$status" = running ] \
                    || fail "instance $name ($iid) is ${status:-in no state}, not running"
                case "$instance $system" in
                    *impaired*) fail "instance $name ($iid): status checks: instance" \
                                     "$instance, system $system";;
                esac
            done
        } || exit 1;;
    *)
        fail "unknown operation '$op' (create, list, tag, destroy or probe)";;
esac
exit 0
