#!/bin/sh
#   test-examples.sh - the example pool drivers in tools/pool/ against stub CLIs
#   (tests/pool/stub-docker as `docker`, tests/pool/stub-aws as `aws`):
#   each operation of the command protocol (docs/pool.md, Pool drivers), the
#   arguments the CLI gets, the list format, the exit codes (10 quota,
#   11 rate limited), the last line of stderr on a failure.
#   Usage: test-examples.sh SOURCE_DIR (ctest: test_pool_examples)
set -u
source_dir=${1:?usage: test-examples.sh SOURCE_DIR}
work=$(mktemp -d /tmp/drover-pool-examples-XXXXXX) || exit 1
mkdir -p "$work/bin" "$work/stub" "$work/home"
ln -s "$source_dir/tests/pool/stub-docker" "$work/bin/docker"
ln -s "$source_dir/tests/pool/stub-aws" "$work/bin/aws"
PATH=$work/bin:$PATH
export PATH
export STUB_DIR="$work/stub" HOME="$work/home"
export DROVER_POOL=tp DROVER_BROKER=tcp://10.0.0.1:5555
failures=0

#   check WHAT COMMAND...: COMMAND must succeed
check () {
    what=$1; shift
    if "$@"; then echo "ok   $what"
    else echo "FAIL $what"; failures=$((failures + 1)); fi
}

#   expect_exit CODE WHAT DRIVER ARGS...: the driver must exit CODE; its
#   stderr's last line is kept in $work/last
expect_exit () {
    want=$1 what=$2; shift 2
    "$@" >"$work/out" 2>"$work/err"
    status=$?
    tail -n 1 "$work/err" >"$work/last"
    if [ $status -eq "$want" ]; then echo "ok   $what (exit $status)"
    else echo "FAIL $what: exit $status, not $want: $(cat "$work/err")"; failures=$((failures + 1)); fi
}

#   has FILE TEXT: a line of FILE is exactly TEXT
has () { grep -qxF -- "$2" "$1"; }
#   contains FILE TEXT: FILE contains TEXT
contains () { grep -qF -- "$2" "$1"; }
#   empty FILE
empty () { [ ! -s "$1" ]; }

create_env () {
    export DROVER_POOL_TYPE=small DROVER_POOL_PROCS=2 DROVER_POOL_MEMORY=4294967296 \
           DROVER_POOL_LABELS=zone=a,gpu=0 DROVER_POOL_IDLE=run DROVER_WORKER_ID=$1
}

docker=$source_dir/tools/pool/pool-docker.sh
echo "# $docker"
create_env tp-1
expect_exit 0 "docker create" "$docker" create small tp-1
check "docker run's arguments" has "$work/stub/docker.calls" \
    "run -d --name tp-1 --label drover-pool=tp --label drover-type=small --label drover-idle=run --network host drover:latest drover worker --broker tcp://10.0.0.1:5555 --id tp-1 --procs 2 --mem 4294967296 --label zone=a --label gpu=0"
DROVER_POOL=other "$docker" create small other-1 2>/dev/null
expect_exit 0 "docker list" "$docker" list
check "docker list line" has "$work/out" "tp-1 small drover-pool=tp drover-idle=run state=running"
check "docker list: ours only" test "$(wc -l <"$work/out")" -eq 1
check "docker ps filtered on the pool's label" contains "$work/stub/docker.calls" \
    "ps -a --filter label=drover-pool=tp --format"
expect_exit 0 "docker tag" "$docker" tag tp-1 hold
expect_exit 0 "docker list after tag" "$docker" list
check "docker list says hold" has "$work/out" "tp-1 small drover-pool=tp drover-idle=hold state=running"
expect_exit 1 "docker tag of no such container" "$docker" tag tp-9 hold
check "docker tag says which" contains "$work/last" "no container tp-9"
expect_exit 1 "docker tag with a bad behaviour" "$docker" tag tp-1 sleep
expect_exit 0 "docker probe of a running container" "$docker" probe tp-1
check "docker probe looks for the pool's container by name" has "$work/stub/docker.calls" \
    "ps -a --filter label=drover-pool=tp --filter name=^tp-1\$ --format {{.Names}} {{.State}}"
check "docker probe without DROVER_DOCKER_PROBE runs nothing in it" \
    test "$(grep -c '^exec ' "$work/stub/docker.calls")" -eq 0
expect_exit 0 "docker probe, its command passes" \
    env DROVER_DOCKER_PROBE='test -d /' "$docker" probe tp-1
check "docker probe runs its command in the container" has "$work/stub/docker.calls" \
    "exec tp-1 sh -c test -d /"
expect_exit 1 "docker probe, its command fails" \
    env DROVER_DOCKER_PROBE='echo no gpu found >&2; exit 3' "$docker" probe tp-1
check "docker probe failure's last line" contains "$work/last" "docker exec: no gpu found"
expect_exit 1 "docker probe of no such container" "$docker" probe tp-9
check "docker probe says which" contains "$work/last" "no container tp-9 in pool tp"
expect_exit 1 "docker probe of another pool's container" "$docker" probe other-1
sed -i 's/^state=running$/state=exited/' "$work/stub/containers/tp-1"
expect_exit 1 "docker probe of a stopped container" \
    env DROVER_DOCKER_PROBE=true "$docker" probe tp-1
check "docker probe says it is not running" contains "$work/last" \
    "container tp-1 is exited, not running"
sed -i 's/^state=exited$/state=running/' "$work/stub/containers/tp-1"
expect_exit 1 "docker probe with no name" "$docker" probe
expect_exit 0 "docker destroy" "$docker" destroy tp-1
check "docker rm -f" has "$work/stub/docker.calls" "rm -f tp-1"
expect_exit 0 "docker list after destroy" "$docker" list
check "docker list empty" empty "$work/out"
expect_exit 0 "docker destroy of what is gone" "$docker" destroy tp-1
create_env tp-2
echo "docker: Error response from daemon: pull access denied for drover, repository does not exist" \
    >"$work/stub/docker.fail"
expect_exit 1 "docker create failing" "$docker" create small tp-2
check "docker failure's last line" contains "$work/last" "pull access denied for drover"
rm -f "$work/stub/docker.fail"
expect_exit 0 "docker create again, a type without labels or memory" \
    env DROVER_POOL_LABELS= DROVER_POOL_MEMORY=0 DROVER_DOCKER_LIMITS=1 "$docker" create big tp-3
check "docker run limits, no --mem" has "$work/stub/docker.calls" \
    "run -d --name tp-3 --label drover-pool=tp --label drover-type=big --label drover-idle=run --cpus 2 --memory 0 --network host drover:latest drover worker --broker tcp://10.0.0.1:5555 --id tp-3 --procs 2"

aws=$source_dir/tools/pool/pool-aws.sh
echo "# $aws"
create_env tp-1
expect_exit 1 "aws create without an AMI" "$aws" create small tp-1
check "aws says the AMI is missing" contains "$work/last" "DROVER_AWS_AMI"
export DROVER_AWS_AMI=ami-0123 DROVER_AWS_TYPES=small=m6i.large,big=c6i.4xlarge
expect_exit 0 "aws create" "$aws" create small tp-1
check "aws run-instances' arguments" contains "$work/stub/aws.calls" \
    "ec2 run-instances --image-id ami-0123 --instance-type m6i.large --count 1 --user-data"
check "aws tags at launch" contains "$work/stub/aws.calls" \
    "--tag-specifications ResourceType=instance,Tags=[{Key=Name,Value=tp-1},{Key=drover-pool,Value=tp},{Key=drover-type,Value=small},{Key=drover-idle,Value=run}]"
check "aws user data starts the worker" contains "$work/stub/ec2/i-00000000000000001.userdata" \
    "drover worker --broker 'tcp://10.0.0.1:5555' --id 'tp-1' --procs '2' --mem '4294967296' --label 'zone=a' --label 'gpu=0'"
expect_exit 0 "aws create of an unmapped type" env DROVER_AWS_TYPES= "$aws" create t3.micro tp-2
check "aws unmapped type is the EC2 type" contains "$work/stub/aws.calls" "--instance-type t3.micro"
expect_exit 0 "aws list" "$aws" list
check "aws list line" has "$work/out" \
    "tp-1 small drover-pool=tp drover-idle=run instance-id=i-00000000000000001 state=running"
check "aws list second line" has "$work/out" \
    "tp-2 t3.micro drover-pool=tp drover-idle=run instance-id=i-00000000000000002 state=running"
check "aws describe filtered on the pool's tag" contains "$work/stub/aws.calls" \
    "ec2 describe-instances --filters Name=tag:drover-pool,Values=tp"
expect_exit 0 "aws tag" "$aws" tag tp-1 drain
check "aws create-tags" has "$work/stub/aws.calls" \
    "ec2 create-tags --resources i-00000000000000001 --tags Key=drover-idle,Value=drain"
expect_exit 0 "aws list after tag" "$aws" list
check "aws list says drain" contains "$work/out" "tp-1 small drover-pool=tp drover-idle=drain "
expect_exit 1 "aws tag of no such instance" "$aws" tag tp-9 hold
expect_exit 0 "aws probe of a running instance" "$aws" probe tp-1
check "aws probe asks its status checks" has "$work/stub/aws.calls" \
    "ec2 describe-instance-status --instance-ids i-00000000000000001 --include-all-instances --query InstanceStatuses[].[InstanceId,InstanceState.Name,InstanceStatus.Status,SystemStatus.Status] --output text"
echo status.instance=initializing >>"$work/stub/ec2/i-00000000000000001"
expect_exit 0 "aws probe while its checks initialize" "$aws" probe tp-1
echo status.system=impaired >>"$work/stub/ec2/i-00000000000000001"
expect_exit 1 "aws probe of an impaired instance" "$aws" probe tp-1
check "aws probe says why" contains "$work/last" \
    "instance tp-1 (i-00000000000000001): status checks: instance initializing, system impaired"
sed -i '/^status\./d; s/^state=running$/state=stopping/' "$work/stub/ec2/i-00000000000000001"
expect_exit 1 "aws probe of a stopping instance" "$aws" probe tp-1
check "aws probe says it is not running" contains "$work/last" \
    "instance tp-1 (i-00000000000000001) is stopping, not running"
sed -i 's/^state=stopping$/state=running/' "$work/stub/ec2/i-00000000000000001"
expect_exit 1 "aws probe of no such instance" "$aws" probe tp-9
check "aws probe says which" contains "$work/last" "no instance tp-9 in pool tp"
echo Throttling >"$work/stub/aws.error.describe-instance-status"
expect_exit 11 "aws probe throttled" "$aws" probe tp-1
rm -f "$work/stub/aws.error.describe-instance-status"
expect_exit 0 "aws probe once more" "$aws" probe tp-1
expect_exit 0 "aws destroy" "$aws" destroy tp-1
check "aws terminate-instances" has "$work/stub/aws.calls" \
    "ec2 terminate-instances --instance-ids i-00000000000000001"
expect_exit 0 "aws list after destroy" "$aws" list
check "aws list without the terminated one" test "$(grep -c tp-1 "$work/out")" -eq 0
expect_exit 0 "aws destroy of what is gone" "$aws" destroy tp-1
check "aws terminates nothing the second time" \
    test "$(grep -c terminate-instances "$work/stub/aws.calls")" -eq 1
for code in InstanceLimitExceeded VcpuLimitExceeded InsufficientInstanceCapacity; do
    echo "$code" >"$work/stub/aws.error.run-instances"
    expect_exit 10 "aws create, $code: quota" "$aws" create small tp-3
    check "aws quota's last line" contains "$work/last" "($code) when calling the RunInstances"
done
for code in RequestLimitExceeded Throttling; do
    echo "$code" >"$work/stub/aws.error.run-instances"
    expect_exit 11 "aws create, $code: rate limited" "$aws" create small tp-3
done
echo UnauthorizedOperation >"$work/stub/aws.error.run-instances"
expect_exit 1 "aws create, UnauthorizedOperation: failed" "$aws" create small tp-3
rm -f "$work/stub/aws.error.run-instances"
echo Throttling >"$work/stub/aws.error.describe-instances"
expect_exit 11 "aws list throttled" "$aws" list
expect_exit 11 "aws destroy throttled (its lookup)" "$aws" destroy tp-2
rm -f "$work/stub/aws.error.describe-instances"
echo RequestLimitExceeded >"$work/stub/aws.error.terminate-instances"
expect_exit 11 "aws destroy throttled" "$aws" destroy tp-2

if [ $failures -eq 0 ]; then
    rm -rf "$work"
    echo "all passed"
    exit 0
fi
echo "$failures failed (kept $work)"
exit 1
