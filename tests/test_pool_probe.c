/*  =========================================================================
    test_pool_probe - Arvados' worker pool rows through a real broker and
    the command driver (tests/pool/test-driver.sh starts real `drover
    worker` processes): an instance whose worker registers but whose boot
    probe fails gets no work, is shown so (`drover pool`, events), and is
    destroyed at the probe timeout, the event saying why; once probes
    pass, the task runs. A batch cancelled while its instances boot has
    them destroyed at once, the events saying why.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <dirent.h>
#include <signal.h>

#define S_SCRIPT    DROVER_SOURCE_DIR "/tests/pool/test-driver.sh"

//  One broker with a command-driven pool, and what the test watches
typedef struct {
    testutil_cluster_t *cluster;    //  the broker
    zsock_t *dealer;                //  the test's client
    zsock_t *sub;                   //  every event
    char dir [64];                  //  the driver's directory (DROVER_TEST_DIR)
    char config [128];              //  the broker's config file
    const char *flags [3];          //  --config FILE
    int metrics;                    //  the port its metrics are served on
} s_pool_t;

//  Start a broker whose pool has one type (1 proc) and the settings given
//  (ZPL lines under pool)
static s_pool_t *
s_pool_new (const char *settings)
{
    s_pool_t *self = (s_pool_t *) zmalloc (sizeof (s_pool_t));
    snprintf (self->dir, sizeof self->dir, "/tmp/drover-pool-probe-XXXXXX");
    assert_non_null (mkdtemp (self->dir));
    snprintf (self->config, sizeof self->config, "%s/broker.cfg", self->dir);
    FILE *file = fopen (self->config, "w");
    assert_non_null (file);
    self->metrics = testutil_free_port ();
    fprintf (file,
        "broker\n"
        "    metrics = 127.0.0.1:%d\n"
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
        "            price = 0.1\n", self->metrics, settings);
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

//  Stop the broker, then every worker the driver started, and remove
//  what is left
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
        if (pid > 0 && kill (pid, SIGKILL) == 0)
            assert_true (testutil_await_gone (pid, 5000));
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

//  How many calls of the driver so far are exactly line or, with a
//  trailing space, start with it
static int
s_calls (s_pool_t *self, const char *prefix)
{
    char *path = zsys_sprintf ("%s/calls", self->dir);
    char *text = testutil_slurp (path);
    zstr_free (&path);
    int count = 0;
    for (char *line = text; line && *line; ) {
        if (strncmp (line, prefix, strlen (prefix)) == 0)
            count++;
        char *end = strchr (line, '\n');
        line = end? end + 1: NULL;
    }
    free (text);
    return count;
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

//  Wait for the next event of topic whose reason holds text; false on timeout
static bool
s_await_event (zsock_t *sub, const char *topic, const char *text, drover_event_t *event,
               int timeout)
{
    int64_t until = zclock_mono () + timeout;
    while (zclock_mono () < until)
        if (testutil_next_event (sub, event, (int) (until - zclock_mono ()))
        &&  streq (event->topic, topic) && strstr (event->reason, text))
            return true;
    return false;
}

//  Match a healthy row with the admin setting *arg (DROVER_ADMIN_*)
static bool
s_with_admin (const drover_worker_row_t *row, void *arg)
{
    return row->health == DROVER_HEALTH_OK && row->admin == *(int *) arg;
}

//  Return the POOL TABLE row of instance id (copied into row); false if none
static bool
s_pool_row (s_pool_t *self, const char *id, drover_pool_row_t *row, uint8_t *probing)
{
    drover_msg_t *list = drover_msg_new (DROVER_MSG_POOL_LIST);
    drover_msg_t *table = testutil_request (self->dealer, &list, 5000);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_POOL_TABLE);
    bool found = false;
    for (uint32_t index = 0; index < table->nrows && !found; index++)
        if (streq (table->pool_rows [index].id, id)) {
            *row = table->pool_rows [index];
            found = true;
        }
    *probing = table->pool.probing;
    drover_msg_destroy (&table);
    return found;
}

//  Send a TASK CANCEL and return the reply's code
static int
s_cancel (zsock_t *dealer, uint64_t task)
{
    drover_msg_t *request = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    request->task = task;
    drover_msg_t *reply = testutil_request (dealer, &request, 5000);
    assert_non_null (reply);
    int code = reply->code;
    drover_msg_destroy (&reply);
    return code;
}


//  A worker that registers but whose probe fails: held (no work), shown
//  as failing, destroyed at the probe timeout with the reason; with the
//  probe passing again, the next instance runs the task
static void
test_failing_probe_destroys_the_instance (void **state)
{
    s_pool_t *pool = s_pool_new ("    probe = on\n    probe-interval = 200\n"
                                 "    probe-timeout = 3000\n    max-instances = 1\n");
    s_cue (pool, "probe.cue", "fail disk not mounted\n");
    uint64_t task = testutil_submit (pool->dealer,
                                     testutil_submit_msg ("true", 0, 1, DROVER_SUBMIT_NOTIFY));
    drover_event_t event;
    assert_true (s_await_event (pool->sub, "pool.booting", "", &event, 20000));
    char instance [DROVER_ID_MAX + 1];
    snprintf (instance, sizeof instance, "%s", event.worker);
    //  Its worker registered and is held by the pool: no work for it
    int hold = DROVER_ADMIN_HOLD;
    assert_true (testutil_wait_worker_row (pool->dealer, instance, s_with_admin, &hold, 20000));
    assert_true (s_await_event (pool->sub, "pool.probe", "probe failed: disk not mounted",
                                &event, 20000));
    assert_string_equal (event.worker, instance);
    //  `drover pool` shows it booting, its probe failed
    drover_pool_row_t row;
    uint8_t probing;
    assert_true (s_pool_row (pool, instance, &row, &probing));
    assert_int_equal (probing, 1);
    assert_int_equal (row.state, 1);                        //  booting
    assert_int_equal (row.probe, DROVER_POOL_PROBE_MAX);    //  failed
    assert_true (row.probes >= 1);
    const char *args [] = { "pool", "--json", NULL };
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    testutil_cli (pool->cluster->endpoint, args, run);
    testutil_cli_expect (run, 0, run->out, "\"probing\":true");
    testutil_cli_expect (run, 0, run->out, "\"probe\":\"failed\"");
    const char *text [] = { "pool", NULL };
    testutil_cli (pool->cluster->endpoint, text, run);
    testutil_cli_expect (run, 0, run->out, "probe failed: disk not mounted");
    testutil_cli_expect (run, 0, run->out, "boot probes on");
    //  Destroyed at the probe timeout, the event saying why
    assert_true (s_await_event (pool->sub, "pool.shutdown", "probe timeout", &event, 20000));
    assert_string_equal (event.worker, instance);
    assert_non_null (strstr (event.reason, "probe failed: disk not mounted"));
    char destroy [DROVER_ID_MAX + 16];
    snprintf (destroy, sizeof destroy, "destroy %s", instance);
    assert_true (s_await_calls (pool, destroy, 1, 10000));
    assert_true (s_calls (pool, "probe ") >= 2);            //  probed again, rate-limited
    assert_true (testutil_metric (pool->metrics, "drover_pool_probe_failures_total") >= 2);
    assert_true (testutil_metric (pool->metrics, "drover_pool_probes_total") >= 2);
    //  The task never ran on it: probes passing, the next instance runs it
    s_cue (pool, "probe.cue", NULL);
    drover_msg_t *done = testutil_expect_done (pool->dealer, task, DROVER_TASK_SUCCEEDED, 30000);
    assert_string_not_equal (done->worker, instance);
    drover_msg_destroy (&done);
    assert_true (s_await_event (pool->sub, "pool.up", "probe passed", &event, 10000));
    free (run);
    s_pool_destroy (&pool);
}

//  A batch cancelled while its instances boot (their workers never
//  register): each booting instance is destroyed at once, not at the boot
//  timeout, the event saying why
static void
test_cancelled_batch_destroys_its_boots (void **state)
{
    s_pool_t *pool = s_pool_new ("    max-instances = 3\n    boot-timeout = 600000\n");
    s_cue (pool, "create.cue", "noworker\n");
    uint64_t tasks [3];
    for (int index = 0; index < 3; index++)
        tasks [index] = testutil_submit (pool->dealer,
            testutil_submit_msg ("sleep 600", 0, 1, DROVER_SUBMIT_NOTIFY));
    assert_true (s_await_calls (pool, "create ", 3, 20000));
    //  Two cancelled: two instances go, one stays for the task left
    assert_int_equal (s_cancel (pool->dealer, tasks [0]), DROVER_CODE_OK);
    assert_int_equal (s_cancel (pool->dealer, tasks [1]), DROVER_CODE_OK);
    drover_event_t event;
    for (int index = 0; index < 2; index++) {
        assert_true (s_await_event (pool->sub, "pool.shutdown", "surplus", &event, 20000));
        assert_non_null (strstr (event.reason, "the tasks it was created for are gone"));
    }
    assert_true (s_await_calls (pool, "destroy ", 2, 10000));
    //  The last cancelled: the last one goes too
    assert_int_equal (s_cancel (pool->dealer, tasks [2]), DROVER_CODE_OK);
    assert_true (s_await_event (pool->sub, "pool.shutdown", "surplus", &event, 20000));
    assert_true (s_await_calls (pool, "destroy ", 3, 10000));
    assert_int_equal (s_calls (pool, "create "), 3);
    assert_int_equal (testutil_metric (pool->metrics, "drover_pool_surplus_destroys_total"), 3);
    assert_int_equal (testutil_metric (pool->metrics, "drover_pool_probes_total"), 0);
    s_pool_destroy (&pool);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_failing_probe_destroys_the_instance),
        cmocka_unit_test (test_cancelled_batch_destroys_its_boots),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
