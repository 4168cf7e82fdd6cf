/*  =========================================================================
    test_pool_command - the elastic pool through a real broker and the
    command driver: tests/pool/test-driver.sh creates real `drover worker`
    processes (or fails on cue), and the pool must warn after consecutive
    create failures, make no create during a quota backoff, destroy an
    instance that never registers at the boot timeout, destroy one that
    stops heartbeating (its task run again elsewhere), and after the
    broker's kill -9 and restart adopt its instances from `list`, a held
    one still held
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

#define S_SCRIPT    DROVER_SOURCE_DIR "/tests/pool/test-driver.sh"

//  One broker with a command-driven pool, and what the test watches
typedef struct {
    testutil_cluster_t *cluster;    //  the broker
    zsock_t *dealer;                //  the test's client
    zsock_t *sub;                   //  every event
    char dir [64];                  //  the driver's directory (DROVER_TEST_DIR)
    char config [128];              //  the broker's config file
    const char *flags [3];          //  --config FILE
} s_pool_t;

//  Start a broker whose pool has one type (1 proc) and the settings given
//  (ZPL lines under pool)
static s_pool_t *
s_pool_new (const char *settings)
{
    s_pool_t *self = (s_pool_t *) zmalloc (sizeof (s_pool_t));
    snprintf (self->dir, sizeof self->dir, "/tmp/drover-pool-command-XXXXXX");
    assert_non_null (mkdtemp (self->dir));
    snprintf (self->config, sizeof self->config, "%s/broker.cfg", self->dir);
    FILE *file = fopen (self->config, "w");
    assert_non_null (file);
    fprintf (file,
        "health\n"
        "    heartbeat = 200\n"
        "    lost-after = 1000\n"
        "pool\n"
        "    driver = command\n"
        "    command = " S_SCRIPT "\n"
        "    list-interval = 500\n"
        "%s"
        "    type\n"
        "        one\n"
        "            procs = 1\n"
        "            memory = 1G\n"
        "            price = 0.1\n", settings);
    fclose (file);
    setenv ("DROVER_TEST_DIR", self->dir, 1);
    setenv ("DROVER_TEST_BIN", DROVER_BIN, 1);
    self->flags [0] = "--config";
    self->flags [1] = self->config;
    self->cluster = testutil_cluster_new (self->flags);
    self->dealer = testutil_dealer (self->cluster);
    self->sub = testutil_cluster_sub (self->cluster, self->dealer, "", "poke");
    return self;
}

//  Stop the broker, then every worker the driver started (instances
//  outlive the broker by design), and remove what is left
static void
s_pool_destroy (s_pool_t **self_p)
{
    s_pool_t *self = *self_p;
    zsock_destroy (&self->sub);
    zsock_destroy (&self->dealer);
    testutil_cluster_destroy (&self->cluster);
    char *path = zsys_sprintf ("%s/instances", self->dir);
    DIR *dir = opendir (path);
    struct dirent *entry;
    while (dir && (entry = readdir (dir))) {
        size_t length = strlen (entry->d_name);
        if (length < 5 || !streq (entry->d_name + length - 4, ".pid"))
            continue;
        char *file = zsys_sprintf ("%s/%s", path, entry->d_name);
        char *text = testutil_slurp (file);
        pid_t pid = text? atoi (text): 0;
        if (pid > 0) {
            kill (pid, SIGCONT);
            kill (pid, SIGKILL);
            assert_true (testutil_await_gone (pid, 5000));
        }
        free (text);
        zstr_free (&file);
    }
    if (dir)
        closedir (dir);
    zstr_free (&path);
    testutil_remove_tree (self->dir);
    unsetenv ("DROVER_TEST_DIR");
    unsetenv ("DROVER_TEST_BIN");
    free (self);
    *self_p = NULL;
}

//  Write text into the driver's directory's file name (a cue); NULL removes it
static void
s_cue (s_pool_t *self, const char *name, const char *text)
{
    char *path = zsys_sprintf ("%s/%s", self->dir, name);
    if (text) {
        char *temp = zsys_sprintf ("%s.tmp", path);
        FILE *file = fopen (temp, "w");
        assert_non_null (file);
        fputs (text, file);
        fclose (file);
        assert_int_equal (rename (temp, path), 0);
        zstr_free (&temp);
    }
    else
        unlink (path);
    zstr_free (&path);
}

//  How many calls of the driver so far start with prefix ("create ", "list")
static int
s_calls (s_pool_t *self, const char *prefix)
{
    char *path = zsys_sprintf ("%s/calls.time", self->dir);
    char *text = testutil_slurp (path);
    zstr_free (&path);
    int count = 0;
    for (char *line = text; line && *line; ) {
        char *space = strchr (line, ' ');
        if (space && strncmp (space + 1, prefix, strlen (prefix)) == 0)
            count++;
        char *end = strchr (line, '\n');
        line = end? end + 1: NULL;
    }
    free (text);
    return count;
}

//  When (msec since the epoch, by the script's clock) the nth call (from
//  1) starting with prefix was made; 0 if not (yet)
static uint64_t
s_call_time (s_pool_t *self, const char *prefix, int nth)
{
    char *path = zsys_sprintf ("%s/calls.time", self->dir);
    char *text = testutil_slurp (path);
    zstr_free (&path);
    uint64_t when = 0;
    for (char *line = text; line && *line && !when; ) {
        char *space = strchr (line, ' ');
        if (space && strncmp (space + 1, prefix, strlen (prefix)) == 0 && --nth == 0)
            when = strtoull (line, NULL, 10);
        char *end = strchr (line, '\n');
        line = end? end + 1: NULL;
    }
    free (text);
    return when;
}

//  Wait until the driver had count calls starting with prefix; false on timeout
static bool
s_await_calls (s_pool_t *self, const char *prefix, int count, int timeout)
{
    int64_t until = zclock_mono () + timeout;
    while (s_calls (self, prefix) < count) {
        if (zclock_mono () >= until)
            return false;
        zclock_sleep (10);          //  paces reading the file; the deadline bounds the wait
    }
    return true;
}

//  The pid of an instance's worker (the script's NAME.pid), 0 if none
static pid_t
s_worker_pid (s_pool_t *self, const char *name)
{
    char *path = zsys_sprintf ("%s/instances/%s.pid", self->dir, name);
    char *text = testutil_slurp (path);
    zstr_free (&path);
    pid_t pid = text? atoi (text): 0;
    free (text);
    return pid;
}

//  Match a healthy row with the admin setting *arg (DROVER_ADMIN_*)
static bool
s_with_admin (const drover_worker_row_t *row, void *arg)
{
    return row->health == DROVER_HEALTH_OK && row->admin == *(int *) arg;
}

//  Wait until the broker lists worker id registered (health OK) with the
//  admin setting admin (DROVER_ADMIN_*); false on timeout
static bool
s_await_admin (zsock_t *dealer, const char *id, int admin, int timeout)
{
    return testutil_wait_worker_row (dealer, id, s_with_admin, &admin, timeout);
}

//  Wait for the next event of topic, about any instance; false on timeout
static bool
s_await_topic (zsock_t *sub, const char *topic, drover_event_t *event, int timeout)
{
    int64_t until = zclock_mono () + timeout;
    while (zclock_mono () < until)
        if (testutil_next_event (sub, event, (int) (until - zclock_mono ()))
        &&  streq (event->topic, topic))
            return true;
    return false;
}

//  Assert text holds needle, showing the text if not
static void
s_expect_in (const char *text, const char *needle)
{
    if (!strstr (text, needle))
        fail_msg ("no '%s' in: %s", needle, text);
}

//  Submit one task of one proc running script; returns its id
static uint64_t
s_submit (s_pool_t *self, const char *script)
{
    return testutil_submit (self->dealer, testutil_submit_msg (script, 0, 1, DROVER_SUBMIT_NOTIFY));
}


//  Creates that fail, twice in a row (warn-failures = 2), are warned of
//  on the event stream with what the driver said; once the driver
//  succeeds, the task runs
static void
test_create_failures_warned (void **state)
{
    s_pool_t *pool = s_pool_new ("    warn-failures = 2\n    max-instances = 1\n");
    s_cue (pool, "create.cue", "fail no room at the inn\n");
    uint64_t task = s_submit (pool, "true");
    drover_event_t event;
    assert_true (testutil_await_event (pool->sub, "pool.warning", "", &event, 20000));
    s_expect_in (event.reason, "creates failed in a row: no room at the inn");
    assert_true (s_calls (pool, "create ") >= 2);
    s_cue (pool, "create.cue", NULL);
    drover_msg_t *done = testutil_expect_done (pool->dealer, task, DROVER_TASK_SUCCEEDED, 30000);
    drover_msg_destroy (&done);
    s_pool_destroy (&pool);
}

//  A create that exits 10 (quota) starts a backoff: the next create comes
//  no sooner than quota-backoff after it
static void
test_quota_backoff (void **state)
{
    s_pool_t *pool = s_pool_new ("    quota-backoff = 2000\n    max-instances = 1\n");
    s_cue (pool, "create.cue", "exit 10 InstanceLimitExceeded: 0 more\n");
    uint64_t task = s_submit (pool, "true");
    assert_true (s_await_calls (pool, "create ", 1, 10000));
    s_cue (pool, "create.cue", NULL);
    assert_true (s_await_calls (pool, "create ", 2, 15000));
    uint64_t first = s_call_time (pool, "create ", 1);
    uint64_t second = s_call_time (pool, "create ", 2);
    if (second - first < 2000)
        fail_msg ("a create %" PRIu64 " ms after the quota error, before the backoff's 2000",
                  second - first);
    drover_msg_t *done = testutil_expect_done (pool->dealer, task, DROVER_TASK_SUCCEEDED, 30000);
    drover_msg_destroy (&done);
    s_pool_destroy (&pool);
}

//  An instance whose worker never registers is destroyed at the boot
//  timeout; the one created in its place runs the task
static void
test_boot_timeout (void **state)
{
    s_pool_t *pool = s_pool_new ("    boot-timeout = 2000\n    max-instances = 1\n");
    s_cue (pool, "create.cue", "noworker\n");
    uint64_t task = s_submit (pool, "true");
    assert_true (s_await_calls (pool, "create ", 1, 10000));
    s_cue (pool, "create.cue", NULL);
    drover_event_t event;
    assert_true (s_await_topic (pool->sub, "pool.booting", &event, 10000));
    char name [DROVER_ID_MAX + 1];
    snprintf (name, sizeof name, "%s", event.worker);
    assert_true (testutil_await_event (pool->sub, "pool.shutdown", name, &event, 15000));
    s_expect_in (event.reason, "boot timeout");
    assert_true (s_await_calls (pool, "destroy ", 1, 15000));
    uint64_t created = s_call_time (pool, "create ", 1);
    uint64_t destroyed = s_call_time (pool, "destroy ", 1);
    //  The boot timeout runs from when the pool asked the create, a little
    //  before the script wrote the time of its call (the shell's start)
    if (destroyed - created < 2000 - 250)
        fail_msg ("destroyed %" PRIu64 " ms after its create, before the boot timeout's 2000",
                  destroyed - created);
    drover_msg_t *done = testutil_expect_done (pool->dealer, task, DROVER_TASK_SUCCEEDED, 30000);
    drover_msg_destroy (&done);
    assert_true (s_calls (pool, "create ") >= 2);
    s_pool_destroy (&pool);
}

//  An instance whose worker stops heartbeating (SIGSTOP) is lost: its
//  task runs again on another instance, and it is destroyed
static void
test_silent_instance_lost (void **state)
{
    s_pool_t *pool = s_pool_new ("    probe-timeout = 1000\n    max-instances = 2\n");
    uint64_t task = s_submit (pool, "sleep 2");
    char first [DROVER_ID_MAX + 1] = "";
    assert_true (testutil_wait_running (pool->dealer, task, first, 30000));
    pid_t pid = s_worker_pid (pool, first);
    assert_true (pid > 0);
    assert_int_equal (kill (pid, SIGSTOP), 0);
    drover_msg_t *done = testutil_expect_done (pool->dealer, task, DROVER_TASK_SUCCEEDED, 40000);
    if (streq (done->worker, first))
        fail_msg ("the task ended on the silent instance %s", first);
    drover_msg_destroy (&done);
    char *destroy = zsys_sprintf ("destroy %s", first);
    assert_true (s_await_calls (pool, destroy, 1, 15000));
    zstr_free (&destroy);
    kill (pid, SIGCONT);            //  its SIGTERM was waiting
    assert_true (testutil_await_gone (pid, 10000));
    s_pool_destroy (&pool);
}

//  The barrier for a task that must wait, with the pool at the one
//  instance it holds: a task no type fits, submitted after it, is warned
//  of (broker log) once the pool has planned from a LOAD that held both;
//  the scheduler placed what it would as each task came, before that
//  LOAD, and the pool answers a POOL LIST after the plan of the turn
//  before. So the task is still QUEUED, and the pool shows instance alone:
//  nothing created (booting) nor destroyed (shutdown) for it, now or late
static void
s_expect_planned_without (s_pool_t *self, uint64_t task, const char *instance)
{
    testutil_submit (self->dealer, testutil_submit_msg ("true", 0, 8, 0));
    const char *log = testutil_cluster_log (self->cluster, "broker");
    if (!testutil_await_line (log, "no instance type fits 8 procs", 10000))
        fail_msg ("the pool never planned from the marker task; the broker's log:\n%s",
                  testutil_slurp (log));
    for (int round = 0; round < 2; round++) {
        drover_msg_t *list = drover_msg_new (DROVER_MSG_POOL_LIST);
        list->seq = 200 + (uint32_t) round;
        drover_msg_t *table = testutil_request (self->dealer, &list, 5000);
        assert_non_null (table);
        assert_int_equal (table->id, DROVER_MSG_POOL_TABLE);
        if (table->nrows != 1 || !streq (table->pool_rows [0].id, instance)
        ||  table->pool_rows [0].state == DROVER_POOL_STATE_MAX)       //  shutdown
            fail_msg ("the pool holds %u instances (the first %s, %s), not %s alone",
                      table->nrows, table->nrows? table->pool_rows [0].id: "-",
                      table->nrows? drover_pool_state_name (table->pool_rows [0].state): "-",
                      instance);
        drover_msg_destroy (&table);
    }
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_LIST);
    request->limit = DROVER_ROWS_MAX;
    request->seq = 202;
    drover_msg_t *reply = testutil_request (self->dealer, &request, 5000);
    assert_non_null (reply);
    int state = -1;
    for (uint32_t row = 0; row < reply->nrows; row++)
        if (reply->task_rows [row].task == task)
            state = reply->task_rows [row].state;
    drover_msg_destroy (&reply);
    if (state != DROVER_TASK_QUEUED)
        fail_msg ("task %" PRIu64 " is %s, not queued", task,
                  state < 0? "not listed": drover_task_state_name (state));
}

//  After the broker's kill -9 and restart on the same state, the instance
//  is adopted from the driver's list, not created again, and one whose tag
//  says hold (tagged while the broker was down: only the list can tell)
//  is held: the scheduler keeps it off new work, and a task waits
static void
test_restart_adopts_held (void **state)
{
    s_pool_t *pool = s_pool_new ("    max-instances = 1\n");
    uint64_t task = s_submit (pool, "true");
    drover_msg_t *done = testutil_expect_done (pool->dealer, task, DROVER_TASK_SUCCEEDED, 30000);
    char name [DROVER_ID_MAX + 1];
    snprintf (name, sizeof name, "%s", done->worker);
    drover_msg_destroy (&done);
    assert_int_equal (s_calls (pool, "create "), 1);

    //  Stopped, then killed: no list runs between the tag and the crash
    assert_int_equal (kill (pool->cluster->broker, SIGSTOP), 0);
    char *line = zsys_sprintf ("%s one drover-pool=drover drover-idle=hold\n", name);
    char *file = zsys_sprintf ("instances/%s", name);
    s_cue (pool, file, line);
    zstr_free (&file);
    zstr_free (&line);
    int lists = s_calls (pool, "list");
    testutil_cluster_kill_restart (pool->cluster, pool->flags);
    zsock_destroy (&pool->dealer);
    pool->dealer = testutil_dealer (pool->cluster);
    assert_true (s_await_calls (pool, "list", lists + 1, 10000));
    assert_true (s_await_admin (pool->dealer, name, DROVER_ADMIN_HOLD, 15000));
    task = s_submit (pool, "true");
    s_expect_planned_without (pool, task, name);
    assert_int_equal (s_calls (pool, "create "), 1);
    assert_int_equal (s_calls (pool, "destroy "), 0);
    s_pool_destroy (&pool);
}

int
main (void)
{
    zsys_init ();
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_create_failures_warned),
        cmocka_unit_test (test_quota_backoff),
        cmocka_unit_test (test_boot_timeout),
        cmocka_unit_test (test_silent_instance_lost),
        cmocka_unit_test (test_restart_adopts_held),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
