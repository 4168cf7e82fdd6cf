/*  =========================================================================
    test_drover_pooldriver - the pool's drivers, through real child
    processes: the command driver running tests/pool/test-driver.sh (every
    outcome: done, failed with a message, quota, rate limited, killed at
    op-timeout with its process group; the environment it gets; a list
    with tagged, untagged and malformed lines; a list too long; the
    example tools/pool/pool-aws.sh on a stand-in aws CLI), and the
    local driver starting real `drover worker` processes against a real
    broker on 127.0.0.1 (listed, tagged, destroyed: SIGTERM, then SIGKILL
    on a second destroy; a file naming a live pid that is not its worker is
    neither listed nor signalled)
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "drover_pooldriver.h"
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define S_SCRIPT    DROVER_SOURCE_DIR "/tests/pool/test-driver.sh"

//  What one finished operation came to, copied out of the callback
typedef struct {
    int count;                      //  reports heard so far
    drover_poolaction_kind_t kind;  //  of the last
    char instance [80];             //  of the last, "" for LIST
    drover_poolop_result_t result;  //  of the last
    char detail [256];              //  of the last
    size_t nentries;                //  of the last LIST
    char entries [16][160];         //  "NAME TYPE POOL BEHAVIOUR" of the last LIST
} s_heard_t;

//  The callback: copy the report
static void
s_on_done (const drover_pooldone_t *done, void *arg)
{
    s_heard_t *heard = (s_heard_t *) arg;
    heard->count++;
    heard->kind = done->kind;
    snprintf (heard->instance, sizeof heard->instance, "%s", done->instance? done->instance: "");
    heard->result = done->result;
    snprintf (heard->detail, sizeof heard->detail, "%s", done->detail);
    heard->nentries = done->nentries;
    for (size_t index = 0; index < done->nentries && index < 16; index++)
        snprintf (heard->entries [index], sizeof heard->entries [index], "%s %s %s %d",
                  done->entries [index].name, done->entries [index].type,
                  done->entries [index].pool, (int) done->entries [index].behaviour);
}

//  Run the driver's loop as the pool actor does (poll its items until its
//  next deadline) until it reported one more operation; false on timeout
static bool
s_await_report (drover_pooldriver_t *driver, s_heard_t *heard, int timeout)
{
    int before = heard->count;
    int64_t until = zclock_mono () + timeout;
    while (heard->count == before && zclock_mono () < until) {
        size_t size = drover_pooldriver_items (driver);
        zmq_pollitem_t *items = (zmq_pollitem_t *) zmalloc ((size + 1) * sizeof (zmq_pollitem_t));
        size_t count = drover_pooldriver_fill (driver, items, size);
        assert_true (count <= size);
        uint64_t now = (uint64_t) zclock_mono ();
        uint64_t deadline = drover_pooldriver_next_deadline (driver);
        int64_t wait = until - (int64_t) now;
        if (deadline != UINT64_MAX)
            wait = deadline <= now? 0: (int64_t) (deadline - now) < wait? (int64_t) (deadline - now): wait;
        zmq_poll (items, (int) count, wait > 0? wait: 0);
        drover_pooldriver_process (driver, items, count, (uint64_t) zclock_mono (), s_on_done,
                                   heard);
        free (items);
    }
    return heard->count > before;
}

//  Wait for the driver's next report (s_await_report, 5 s) and assert the
//  operation succeeded
static void
s_await_ok (drover_pooldriver_t *driver, s_heard_t *heard)
{
    assert_true (s_await_report (driver, heard, 5000));
    assert_int_equal (heard->result, DROVER_POOLOP_OK);
}

//  A pool's settings for a driver, with two types
typedef struct {
    drover_poolconfig_t config;     //  what the driver is given
    char dir [64];                  //  a directory of the test's
} s_setup_t;

static s_setup_t *
s_setup_new (const char *driver)
{
    s_setup_t *setup = (s_setup_t *) zmalloc (sizeof (s_setup_t));
    snprintf (setup->dir, sizeof setup->dir, "/tmp/drover-pooldriver-XXXXXX");
    assert_non_null (mkdtemp (setup->dir));
    drover_poolconfig_t *config = &setup->config;
    config->name = (char *) "testpool";
    config->driver = (char *) driver;
    config->command = (char *) S_SCRIPT;
    config->worker = (char *) DROVER_BIN;
    config->local_dir = (char *) "";
    config->broker = (char *) "";
    config->op_timeout = 10000;
    snprintf (config->types [0].name, sizeof config->types [0].name, "small");
    config->types [0].procs = 2;
    config->types [0].mem = 4ULL << 30;
    config->types [0].labels = (char *) "zone=a\ngpu=0";
    config->types [0].devices = (char *) "gpu=2";
    config->types [0].price = 0.1;
    snprintf (config->types [1].name, sizeof config->types [1].name, "big");
    config->types [1].procs = 16;
    config->types [1].mem = 64ULL << 30;
    config->types [1].labels = (char *) "";
    config->types [1].price = 1.2;
    config->ntypes = 2;
    setenv ("DROVER_TEST_DIR", setup->dir, 1);
    unsetenv ("DROVER_TEST_BIN");
    return setup;
}

static void
s_setup_destroy (s_setup_t **setup_p)
{
    testutil_remove_tree ((*setup_p)->dir);
    free (*setup_p);
    *setup_p = NULL;
}

//  Write text into the test directory's file name
static void
s_write (s_setup_t *setup, const char *name, const char *text)
{
    char *path = zsys_sprintf ("%s/%s", setup->dir, name);
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fputs (text, file);
    fclose (file);
    zstr_free (&path);
}

//  Read the test directory's file name (caller frees)
static char *
s_read (s_setup_t *setup, const char *name)
{
    char *path = zsys_sprintf ("%s/%s", setup->dir, name);
    char *text = testutil_slurp (path);
    zstr_free (&path);
    return text;
}

//  Assert text holds needle, showing the text if not
static void
s_expect_in (const char *text, const char *needle)
{
    if (!text || !strstr (text, needle))
        fail_msg ("no '%s' in:\n%s", needle, text? text: "(nothing)");
}

static drover_pooldriver_t *
s_driver_new (s_setup_t *setup, const char *broker)
{
    char *error = NULL;
    drover_pooldriver_t *driver = drover_pooldriver_new (&setup->config, broker, "", &error);
    if (!driver)
        fail_msg ("no driver: %s", error);
    return driver;
}

//  A local driver talking to broker, its instances' files in a fresh
//  setup's directory (*setup_p, the caller destroys it)
static drover_pooldriver_t *
s_local_driver_new (s_setup_t **setup_p, const char *broker)
{
    s_setup_t *setup = s_setup_new ("local");
    setup->config.local_dir = setup->dir;
    *setup_p = setup;
    return s_driver_new (setup, broker);
}


//  A create that succeeds: the command hears create TYPE NAME and the
//  protocol's environment; a tag hears the type it was created with
static void
test_command_create_environment (void **state)
{
    s_setup_t *setup = s_setup_new ("command");
    setenv ("DROVER_POOL_TYPE", "stale", 1);    //  ours are replaced, not doubled
    drover_pooldriver_t *driver = s_driver_new (setup, "tcp://127.0.0.1:5999");
    s_heard_t heard = { 0 };
    drover_pooldriver_create (driver, &setup->config.types [0], "testpool-x-1", DROVER_IDLE_HOLD);
    assert_int_equal (drover_pooldriver_running (driver), 1);
    assert_true (s_await_report (driver, &heard, 10000));
    assert_int_equal (heard.kind, DROVER_POOL_CREATE);
    assert_string_equal (heard.instance, "testpool-x-1");
    assert_int_equal (heard.result, DROVER_POOLOP_OK);
    assert_string_equal (heard.detail, "");
    assert_int_equal (drover_pooldriver_running (driver), 0);
    char *calls = s_read (setup, "calls");
    assert_string_equal (calls, "create small testpool-x-1\n");
    free (calls);
    char *env = s_read (setup, "env.create");
    char *expected = zsys_sprintf (
        "DROVER_BROKER=tcp://127.0.0.1:5999\n"
        "DROVER_POOL=testpool\n"
        "DROVER_POOL_DEVICES=gpu=2\n"
        "DROVER_POOL_IDLE=hold\n"
        "DROVER_POOL_LABELS=zone=a,gpu=0\n"
        "DROVER_POOL_MEMORY=4294967296\n"
        "DROVER_POOL_PROCS=2\n"
        "DROVER_POOL_TYPE=small\n"
        "DROVER_TEST_DIR=%s\n"
        "DROVER_WORKER_ID=testpool-x-1\n", setup->dir);
    assert_string_equal (env, expected);
    zstr_free (&expected);
    free (env);
    unsetenv ("DROVER_POOL_TYPE");

    drover_pooldriver_tag (driver, "testpool-x-1", DROVER_IDLE_DRAIN);
    assert_true (s_await_report (driver, &heard, 10000));
    assert_int_equal (heard.kind, DROVER_POOL_TAG);
    assert_int_equal (heard.result, DROVER_POOLOP_OK);
    env = s_read (setup, "env.tag");
    s_expect_in (env, "DROVER_POOL_TYPE=small\n");
    s_expect_in (env, "DROVER_POOL_IDLE=drain\n");
    s_expect_in (env, "DROVER_WORKER_ID=testpool-x-1\n");
    free (env);
    drover_pooldriver_destroy_instance (driver, "testpool-x-1");
    assert_true (s_await_report (driver, &heard, 10000));
    assert_int_equal (heard.kind, DROVER_POOL_DESTROY);
    assert_int_equal (heard.result, DROVER_POOLOP_OK);
    env = s_read (setup, "env.destroy");
    assert_null (strstr (env, "DROVER_POOL_TYPE"));
    s_expect_in (env, "DROVER_POOL=testpool\n");
    free (env);
    calls = s_read (setup, "calls");
    s_expect_in (calls, "tag testpool-x-1 drain\ndestroy testpool-x-1\n");
    free (calls);
    drover_pooldriver_destroy (&driver);
    s_setup_destroy (&setup);
}

//  Exit 1, 10 and 11, and a death by signal: failed, quota, rate limited,
//  failed; the detail is the last line of stderr (or says how it ended)
static void
test_command_exit_codes (void **state)
{
    s_setup_t *setup = s_setup_new ("command");
    drover_pooldriver_t *driver = s_driver_new (setup, "tcp://127.0.0.1:5999");
    s_heard_t heard = { 0 };
    struct {
        const char *cue;
        drover_poolop_result_t result;
        const char *detail;
    } cases [] = {
        { "fail no capacity in zone a\n", DROVER_POOLOP_FAILED, "no capacity in zone a" },
        { "exit 10 InstanceLimitExceeded: 20 at most\n", DROVER_POOLOP_QUOTA,
          "InstanceLimitExceeded: 20 at most" },
        { "exit 11 RequestLimitExceeded\n", DROVER_POOLOP_RATE_LIMITED, "RequestLimitExceeded" },
        { "exit 7\n", DROVER_POOLOP_FAILED, "exit status 7" },
        { "exit 10\n", DROVER_POOLOP_QUOTA, "exit status 10" },
        { "ok\n", DROVER_POOLOP_OK, "" },
    };
    for (size_t index = 0; index < sizeof cases / sizeof cases [0]; index++) {
        s_write (setup, "create.cue", cases [index].cue);
        drover_pooldriver_create (driver, &setup->config.types [1], "testpool-x-2",
                                  DROVER_IDLE_RUN);
        assert_true (s_await_report (driver, &heard, 10000));
        assert_int_equal (heard.kind, DROVER_POOL_CREATE);
        assert_int_equal (heard.result, cases [index].result);
        assert_string_equal (heard.detail, cases [index].detail);
    }
    drover_pooldriver_destroy (&driver);
    s_setup_destroy (&setup);
}

//  A command past op-timeout is killed with its process group (the sleep
//  it started too) and fails, saying so
static void
test_command_op_timeout_kills_group (void **state)
{
    s_setup_t *setup = s_setup_new ("command");
    setup->config.op_timeout = 1000;
    drover_pooldriver_t *driver = s_driver_new (setup, "tcp://127.0.0.1:5999");
    s_heard_t heard = { 0 };
    s_write (setup, "destroy.cue", "hang\n");
    int64_t started = zclock_mono ();
    drover_pooldriver_destroy_instance (driver, "testpool-x-3");
    uint64_t deadline = drover_pooldriver_next_deadline (driver);
    assert_true (deadline >= (uint64_t) started + 1000
              && deadline <= (uint64_t) zclock_mono () + 1000);
    char *path = zsys_sprintf ("%s/hang.pid", setup->dir);
    assert_true (testutil_await_line (path, "", 10000));
    zstr_free (&path);
    assert_true (s_await_report (driver, &heard, 10000));
    assert_true (zclock_mono () - started >= 1000);
    assert_int_equal (heard.kind, DROVER_POOL_DESTROY);
    assert_int_equal (heard.result, DROVER_POOLOP_FAILED);
    s_expect_in (heard.detail, "timed out after 1000 ms");
    char *pid = s_read (setup, "hang.pid");
    assert_non_null (pid);
    assert_true (testutil_await_gone (atoi (pid), 5000));
    free (pid);
    assert_int_equal (drover_pooldriver_running (driver), 0);
    assert_int_equal (drover_pooldriver_next_deadline (driver), UINT64_MAX);
    drover_pooldriver_destroy (&driver);
    s_setup_destroy (&setup);
}

//  Destroying the driver kills a running command (its group) and reports
//  nothing
static void
test_command_destroy_kills_running (void **state)
{
    s_setup_t *setup = s_setup_new ("command");
    drover_pooldriver_t *driver = s_driver_new (setup, "tcp://127.0.0.1:5999");
    s_write (setup, "list.cue", "hang\n");
    drover_pooldriver_list (driver);
    char *path = zsys_sprintf ("%s/hang.pid", setup->dir);
    assert_true (testutil_await_line (path, "", 10000));
    char *pid = testutil_slurp (path);
    assert_non_null (pid);
    drover_pooldriver_destroy (&driver);
    assert_true (testutil_await_gone (atoi (pid), 5000));
    free (pid);
    zstr_free (&path);
    s_setup_destroy (&setup);
}

//  A list: tagged and untagged instances, a malformed line skipped, the
//  rest kept; a list that prints more than 1 MiB fails
static void
test_command_list_parsed (void **state)
{
    s_setup_t *setup = s_setup_new ("command");
    drover_pooldriver_t *driver = s_driver_new (setup, "tcp://127.0.0.1:5999");
    s_heard_t heard = { 0 };
    s_write (setup, "list.out",
        "# instances\n"
        "testpool-a-1 small drover-pool=testpool drover-idle=hold zone=a\n"
        "\n"
        "other-1 big\n"
        "this line is not a list line\n"
        "testpool-a-2 big drover-idle=sleepy drover-pool=testpool\n"
        "testpool-a-3 - drover-pool=testpool\n"
        "lonely\n"
        "  testpool-a-4\tbig\tdrover-pool=testpool\tdrover-idle=drain");
    drover_pooldriver_list (driver);
    assert_true (s_await_report (driver, &heard, 10000));
    assert_int_equal (heard.kind, DROVER_POOL_LIST);
    assert_int_equal (heard.result, DROVER_POOLOP_OK);
    assert_int_equal (heard.nentries, 4);
    assert_string_equal (heard.entries [0], "testpool-a-1 small testpool 1");
    assert_string_equal (heard.entries [1], "other-1 big  0");
    assert_string_equal (heard.entries [2], "testpool-a-3  testpool 0");
    assert_string_equal (heard.entries [3], "testpool-a-4 big testpool 2");

    //  The tag of a listed instance carries its type
    drover_pooldriver_tag (driver, "testpool-a-4", DROVER_IDLE_RUN);
    assert_true (s_await_report (driver, &heard, 10000));
    char *env = s_read (setup, "env.tag");
    s_expect_in (env, "DROVER_POOL_TYPE=big\n");
    free (env);

    char *path = zsys_sprintf ("%s/list.out", setup->dir);
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    for (int line = 0; line < 40000; line++)
        fprintf (file, "testpool-b-%d small drover-pool=testpool\n", line);
    fclose (file);
    zstr_free (&path);
    drover_pooldriver_list (driver);
    assert_true (s_await_report (driver, &heard, 10000));
    assert_int_equal (heard.result, DROVER_POOLOP_FAILED);
    s_expect_in (heard.detail, "more than 1048576 bytes");
    assert_int_equal (heard.nentries, 0);
    drover_pooldriver_destroy (&driver);
    s_setup_destroy (&setup);
}

//  Refused at start: a command that is not an executable file, an unknown
//  driver
static void
test_refused_at_start (void **state)
{
    s_setup_t *setup = s_setup_new ("command");
    char *error = NULL;
    setup->config.command = (char *) DROVER_SOURCE_DIR "/README.md";
    assert_null (drover_pooldriver_new (&setup->config, "tcp://127.0.0.1:5999", "", &error));
    s_expect_in (error, "pool/command");
    zstr_free (&error);
    setup->config.command = (char *) "/nonexistent/driver";
    assert_null (drover_pooldriver_new (&setup->config, "tcp://127.0.0.1:5999", "", &error));
    s_expect_in (error, "not an executable file");
    zstr_free (&error);
    setup->config.driver = (char *) "cloud";
    assert_null (drover_pooldriver_new (&setup->config, "tcp://127.0.0.1:5999", "", &error));
    s_expect_in (error, "pool/driver");
    zstr_free (&error);
    s_setup_destroy (&setup);
}

//  The example drivers in tools/pool/ speak the protocol: pool-aws.sh on
//  the stand-in aws CLI (tests/pool/stub-aws) creates, lists what
//  drover's parser takes (its extra tags ignored), and exits 10 and 11
//  on the quota and throttle errors, each read as such
static void
test_command_aws_example (void **state)
{
    s_setup_t *setup = s_setup_new ("command");
    setup->config.command = (char *) DROVER_SOURCE_DIR "/tools/pool/pool-aws.sh";
    char *bin = zsys_sprintf ("%s/bin", setup->dir);
    assert_int_equal (mkdir (bin, 0755), 0);
    char *link = zsys_sprintf ("%s/aws", bin);
    assert_int_equal (symlink (DROVER_SOURCE_DIR "/tests/pool/stub-aws", link), 0);
    char *path = zsys_sprintf ("%s:%s", bin, getenv ("PATH"));
    char *saved = strdup (getenv ("PATH"));
    setenv ("PATH", path, 1);
    setenv ("STUB_DIR", setup->dir, 1);
    setenv ("DROVER_AWS_AMI", "ami-0123", 1);
    drover_pooldriver_t *driver = s_driver_new (setup, "tcp://10.0.0.1:5555");
    s_heard_t heard = { 0 };
    drover_pooldriver_create (driver, &setup->config.types [0], "testpool-e-1", DROVER_IDLE_RUN);
    assert_true (s_await_report (driver, &heard, 10000));
    assert_int_equal (heard.result, DROVER_POOLOP_OK);
    drover_pooldriver_tag (driver, "testpool-e-1", DROVER_IDLE_HOLD);
    assert_true (s_await_report (driver, &heard, 10000));
    assert_int_equal (heard.result, DROVER_POOLOP_OK);
    drover_pooldriver_list (driver);
    assert_true (s_await_report (driver, &heard, 10000));
    assert_int_equal (heard.result, DROVER_POOLOP_OK);
    assert_int_equal (heard.nentries, 1);
    assert_string_equal (heard.entries [0], "testpool-e-1 small testpool 1");
    s_write (setup, "aws.error.run-instances", "VcpuLimitExceeded\n");
    drover_pooldriver_create (driver, &setup->config.types [0], "testpool-e-2", DROVER_IDLE_RUN);
    assert_true (s_await_report (driver, &heard, 10000));
    assert_int_equal (heard.result, DROVER_POOLOP_QUOTA);
    s_expect_in (heard.detail, "(VcpuLimitExceeded) when calling the RunInstances operation");
    s_write (setup, "aws.error.run-instances", "RequestLimitExceeded\n");
    drover_pooldriver_create (driver, &setup->config.types [0], "testpool-e-2", DROVER_IDLE_RUN);
    assert_true (s_await_report (driver, &heard, 10000));
    assert_int_equal (heard.result, DROVER_POOLOP_RATE_LIMITED);
    drover_pooldriver_destroy_instance (driver, "testpool-e-1");
    assert_true (s_await_report (driver, &heard, 10000));
    assert_int_equal (heard.result, DROVER_POOLOP_OK);
    drover_pooldriver_list (driver);
    assert_true (s_await_report (driver, &heard, 10000));
    assert_int_equal (heard.nentries, 0);
    drover_pooldriver_destroy (&driver);
    setenv ("PATH", saved, 1);
    unsetenv ("STUB_DIR");
    unsetenv ("DROVER_AWS_AMI");
    free (saved);
    zstr_free (&path);
    zstr_free (&link);
    zstr_free (&bin);
    s_setup_destroy (&setup);
}

//  ---------------------------------------------------------------------
//  The local driver

//  Match a row UP and healthy with procs (*arg)
static bool
s_up_with_procs (const drover_worker_row_t *row, void *arg)
{
    return row->health == DROVER_HEALTH_OK && row->state == DROVER_WORKER_UP
        && row->procs == *(uint32_t *) arg;
}

//  Wait until the broker lists worker id UP and healthy, with procs
static bool
s_await_worker (zsock_t *dealer, const char *id, uint32_t procs, int timeout)
{
    return testutil_wait_worker_row (dealer, id, s_up_with_procs, &procs, timeout);
}

//  The pid in an instance's file, 0 if none
static pid_t
s_instance_pid (drover_pooldriver_t *driver, s_setup_t *setup, const char *name)
{
    char *text = s_read (setup, name);
    pid_t pid = 0;
    if (text && strstr (text, "pid="))
        pid = atoi (strstr (text, "pid=") + 4);
    free (text);
    return pid;
}

//  A list through the local driver; returns how many it listed
static size_t
s_local_list (drover_pooldriver_t *driver, s_heard_t *heard)
{
    drover_pooldriver_list (driver);
    assert_int_equal (drover_pooldriver_next_deadline (driver), 0);
    assert_true (s_await_report (driver, heard, 5000));
    assert_int_equal (heard->kind, DROVER_POOL_LIST);
    assert_int_equal (heard->result, DROVER_POOLOP_OK);
    return heard->nentries;
}

//  Run the driver's loop until it reaped pid (a child of ours that ended:
//  its pidfd wakes the loop), so no zombie is left: the pid is gone
static void
s_await_reaped (drover_pooldriver_t *driver, s_heard_t *heard, pid_t pid)
{
    int64_t until = zclock_mono () + 5000;
    while (kill (pid, 0) == 0 && zclock_mono () < until)
        assert_false (s_await_report (driver, heard, 100));
    assert_int_equal (kill (pid, 0), -1);
}

//  An instance listed right after its create, before its worker has even
//  started: it is listed, and its file kept. It was taken for a dead one
//  (the new process's command line did not name it yet), its file removed
//  and the instance forgotten while its worker ran on, never destroyed.
static void
test_local_listed_right_after_create (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    s_setup_t *setup;
    drover_pooldriver_t *driver = s_local_driver_new (&setup, cluster->endpoint);
    s_heard_t heard = { 0 };
    for (int round = 0; round < 5; round++) {
        char name [32];
        snprintf (name, sizeof name, "testpool-r-%d", round);
        drover_pooldriver_create (driver, &setup->config.types [0], name, DROVER_IDLE_RUN);
        s_await_ok (driver, &heard);
        assert_int_equal (s_local_list (driver, &heard), (size_t) round + 1);
        pid_t pid = s_instance_pid (driver, setup, name);
        assert_true (pid > 0);
    }
    for (int round = 0; round < 5; round++) {
        char name [32];
        snprintf (name, sizeof name, "testpool-r-%d", round);
        pid_t pid = s_instance_pid (driver, setup, name);
        drover_pooldriver_destroy_instance (driver, name);
        assert_true (s_await_report (driver, &heard, 5000));
        assert_true (testutil_await_gone (pid, 10000));
        s_await_reaped (driver, &heard, pid);
    }
    drover_pooldriver_destroy (&driver);
    s_setup_destroy (&setup);
    testutil_cluster_destroy (&cluster);
}

//  A real worker: created (registers with the broker as the instance,
//  with the type's procs), listed, tagged, destroyed with SIGTERM (it ends,
//  and is reaped), no longer listed
static void
test_local_create_list_destroy (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    s_setup_t *setup;
    drover_pooldriver_t *driver = s_local_driver_new (&setup, cluster->endpoint);
    s_heard_t heard = { 0 };
    assert_int_equal (s_local_list (driver, &heard), 0);

    drover_pooldriver_create (driver, &setup->config.types [0], "testpool-l-1", DROVER_IDLE_RUN);
    assert_true (s_await_report (driver, &heard, 5000));
    assert_int_equal (heard.kind, DROVER_POOL_CREATE);
    assert_int_equal (heard.result, DROVER_POOLOP_OK);
    pid_t pid = s_instance_pid (driver, setup, "testpool-l-1");
    assert_true (pid > 0);
    assert_true (s_await_worker (dealer, "testpool-l-1", 2, 20000));
    assert_int_equal (getsid (pid), pid);       //  a session of its own
    char *text = s_read (setup, "testpool-l-1");
    s_expect_in (text, "type=small\npool=testpool\nidle=run\n");
    free (text);
    char *log = zsys_sprintf ("%s/testpool-l-1.log", setup->dir);
    assert_true (access (log, F_OK) == 0);
    zstr_free (&log);
    //  Its command line and environment
    char path [64];
    snprintf (path, sizeof path, "/proc/%d/environ", (int) pid);
    FILE *file = fopen (path, "r");
    assert_non_null (file);
    char environ_text [65536];
    size_t size = fread (environ_text, 1, sizeof environ_text - 1, file);
    fclose (file);
    bool broker_set = false;
    for (size_t at = 0; at < size; at += strlen (environ_text + at) + 1) {
        environ_text [size] = 0;
        if (strncmp (environ_text + at, "DROVER_BROKER=", 14) == 0)
            broker_set = streq (environ_text + at + 14, cluster->endpoint);
    }
    assert_true (broker_set);

    assert_int_equal (s_local_list (driver, &heard), 1);
    assert_string_equal (heard.entries [0], "testpool-l-1 small testpool 0");
    drover_pooldriver_tag (driver, "testpool-l-1", DROVER_IDLE_HOLD);
    s_await_ok (driver, &heard);
    assert_int_equal (s_local_list (driver, &heard), 1);
    assert_string_equal (heard.entries [0], "testpool-l-1 small testpool 1");
    assert_int_equal (s_instance_pid (driver, setup, "testpool-l-1"), pid);

    //  Destroy: the worker says goodbye and ends; its pidfd wakes the loop
    //  and it is reaped (no zombie left: the pid is gone)
    drover_pooldriver_destroy_instance (driver, "testpool-l-1");
    assert_true (s_await_report (driver, &heard, 5000));
    assert_int_equal (heard.kind, DROVER_POOL_DESTROY);
    assert_int_equal (heard.result, DROVER_POOLOP_OK);
    assert_true (testutil_await_gone (pid, 10000));
    s_await_reaped (driver, &heard, pid);
    assert_int_equal (drover_pooldriver_items (driver), 0);
    assert_int_equal (s_local_list (driver, &heard), 0);
    text = s_read (setup, "testpool-l-1");
    assert_null (text);
    //  A destroy of what is gone is done
    drover_pooldriver_destroy_instance (driver, "testpool-l-1");
    s_await_ok (driver, &heard);

    drover_pooldriver_destroy (&driver);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
    s_setup_destroy (&setup);
}

//  A worker that does not end on SIGTERM (stopped) ends on the second
//  destroy (SIGKILL); destroying the driver leaves instances running
static void
test_local_second_destroy_kills (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    s_setup_t *setup;
    drover_pooldriver_t *driver = s_local_driver_new (&setup, cluster->endpoint);
    s_heard_t heard = { 0 };
    drover_pooldriver_create (driver, &setup->config.types [1], "testpool-l-2", DROVER_IDLE_RUN);
    s_await_ok (driver, &heard);
    pid_t pid = s_instance_pid (driver, setup, "testpool-l-2");
    assert_true (s_await_worker (dealer, "testpool-l-2", 16, 20000));
    assert_int_equal (kill (pid, SIGSTOP), 0);
    drover_pooldriver_destroy_instance (driver, "testpool-l-2");
    s_await_ok (driver, &heard);
    assert_false (testutil_await_gone (pid, 500));      //  SIGTERM waits while stopped
    assert_int_equal (s_local_list (driver, &heard), 1);
    drover_pooldriver_destroy_instance (driver, "testpool-l-2");
    s_await_ok (driver, &heard);
    assert_true (testutil_await_gone (pid, 5000));
    s_await_reaped (driver, &heard, pid);
    assert_int_equal (s_local_list (driver, &heard), 0);

    //  Destroying the driver leaves an instance running
    drover_pooldriver_create (driver, &setup->config.types [0], "testpool-l-3", DROVER_IDLE_RUN);
    assert_true (s_await_report (driver, &heard, 5000));
    pid = s_instance_pid (driver, setup, "testpool-l-3");
    drover_pooldriver_destroy (&driver);
    assert_true (s_await_worker (dealer, "testpool-l-3", 2, 20000));
    assert_int_equal (kill (pid, 0), 0);
    //  A new driver on the same directory finds it (a broker restarted)
    driver = s_driver_new (setup, cluster->endpoint);
    assert_int_equal (s_local_list (driver, &heard), 1);
    assert_string_equal (heard.entries [0], "testpool-l-3 small testpool 0");
    drover_pooldriver_destroy_instance (driver, "testpool-l-3");
    assert_true (s_await_report (driver, &heard, 5000));
    assert_true (testutil_await_gone (pid, 10000));
    waitpid (pid, NULL, 0);         //  the test is its parent now the driver is gone
    drover_pooldriver_destroy (&driver);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
    s_setup_destroy (&setup);
}

//  A file naming a live pid that is not its worker (the pid was reused) is
//  neither listed nor signalled, and its file is removed
static void
test_local_pid_reuse_guard (void **state)
{
    s_setup_t *setup;
    drover_pooldriver_t *driver = s_local_driver_new (&setup, "tcp://127.0.0.1:5999");
    s_heard_t heard = { 0 };
    const char *argv [] = { "/bin/sleep", "60", NULL };
    pid_t sleeper = testutil_spawn (argv, NULL);
    assert_true (sleeper > 0);
    char text [128];
    snprintf (text, sizeof text, "pid=%d\ntype=small\npool=testpool\nidle=hold\n", (int) sleeper);
    s_write (setup, "testpool-r-1", text);
    s_write (setup, "testpool-r-2", text);
    drover_pooldriver_destroy_instance (driver, "testpool-r-1");
    s_await_ok (driver, &heard);
    drover_pooldriver_destroy_instance (driver, "testpool-r-1");
    assert_true (s_await_report (driver, &heard, 5000));
    assert_int_equal (s_local_list (driver, &heard), 0);
    assert_int_equal (kill (sleeper, 0), 0);         //  never signalled
    assert_int_equal (testutil_wait_exit (sleeper, 0), -1);
    char *left = s_read (setup, "testpool-r-2");
    assert_null (left);
    testutil_stop (sleeper, 1000);
    drover_pooldriver_destroy (&driver);
    s_setup_destroy (&setup);
}

//  In a process that ignores SIGCHLD the kernel reaps children itself: a
//  command's status is then unknown (a failure that says so, not a
//  crash), and a local worker that ended is dropped from the poll items
//  (not polled again and again)
static void
test_sigchld_ignored (void **state)
{
    s_setup_t *setup = s_setup_new ("command");
    drover_pooldriver_t *driver = s_driver_new (setup, "tcp://127.0.0.1:5999");
    s_heard_t heard = { 0 };
    struct sigaction ignore = { .sa_handler = SIG_IGN }, saved;
    sigemptyset (&ignore.sa_mask);
    assert_int_equal (sigaction (SIGCHLD, &ignore, &saved), 0);
    drover_pooldriver_list (driver);
    assert_true (s_await_report (driver, &heard, 10000));
    assert_int_equal (heard.result, DROVER_POOLOP_FAILED);
    s_expect_in (heard.detail, "reaped elsewhere");
    drover_pooldriver_destroy (&driver);

    //  A "worker" that ends at once (its argv ignored) ends on its own
    setup->config.driver = (char *) "local";
    setup->config.local_dir = setup->dir;
    setup->config.worker = (char *) "/bin/false";
    driver = s_driver_new (setup, "tcp://127.0.0.1:1");
    drover_pooldriver_create (driver, &setup->config.types [0], "testpool-s-1", DROVER_IDLE_RUN);
    s_await_ok (driver, &heard);
    //  Its record names it until the driver reaps it and removes the
    //  record: under load that may have happened already
    pid_t pid = s_instance_pid (driver, setup, "testpool-s-1");
    if (pid > 0)
        assert_true (testutil_await_gone (pid, 10000));
    int64_t until = zclock_mono () + 5000;
    while (drover_pooldriver_items (driver) && zclock_mono () < until)
        s_await_report (driver, &heard, 100);
    assert_int_equal (drover_pooldriver_items (driver), 0);
    //  The kernel may have reaped it before the driver could watch it
    //  (SIGCHLD ignored): its record then stays until a list finds its
    //  worker gone and removes it
    s_local_list (driver, &heard);
    assert_int_equal (heard.nentries, 0);
    assert_int_equal (s_instance_pid (driver, setup, "testpool-s-1"), 0);
    assert_int_equal (sigaction (SIGCHLD, &saved, NULL), 0);
    drover_pooldriver_destroy (&driver);
    s_setup_destroy (&setup);
}

int
main (void)
{
    zsys_init ();
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_command_create_environment),
        cmocka_unit_test (test_command_exit_codes),
        cmocka_unit_test (test_command_op_timeout_kills_group),
        cmocka_unit_test (test_command_destroy_kills_running),
        cmocka_unit_test (test_command_list_parsed),
        cmocka_unit_test (test_refused_at_start),
        cmocka_unit_test (test_command_aws_example),
        cmocka_unit_test (test_local_create_list_destroy),
        cmocka_unit_test (test_local_listed_right_after_create),
        cmocka_unit_test (test_local_second_destroy_kills),
        cmocka_unit_test (test_local_pid_reuse_guard),
        cmocka_unit_test (test_sigchld_ignored),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
