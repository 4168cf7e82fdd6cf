/*  =========================================================================
    test_cli_pool - `drover pool` through the real CLI against a real
    broker: with the local driver and a minimum of one instance, the list
    and its JSON show the instance (its price; the task it ran last and
    when it was last busy, while the task runs and after), hold, run,
    drain and destroy change
    what the list shows (a drained idle instance and a destroyed one go,
    and the minimum brings another), an unknown instance is a clear error
    and exit 1; without a pool it says "no pool configured" and exits 1
    (the list, --json and each action); flags and arguments it cannot use
    exit 2 with a message, before any request
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "drover_pool.h"
#include <sys/wait.h>
#include <time.h>

//  A pool of one type of 1 proc, at most 2 instances, at least 1, never
//  idle long enough to be retired during the test
static const char *s_pool_flags [] = {
    "--set", "pool/max-instances=2",
    "--set", "pool/min-instances=1",
    "--set", "pool/idle-timeout=600000",
    "--set", "pool/type/small/procs=1",
    "--set", "pool/type/small/memory=256M",
    "--set", "pool/type/small/price=0.10",
    NULL
};

//  What to look for in the pool: a row in a state, or a row's absence
typedef struct {
    const char *id;             //  this instance, or NULL for any
    const char *other_than;     //  any instance but this one, or NULL
    int state;                  //  the state wanted, or -1: id is gone or shutting down
    char found [DROVER_ID_MAX + 1];     //  the instance found
} s_want_t;

//  True once the pool shows what want asks (POOL LIST, as the CLI asks)
static bool
s_pool_shows (zsock_t *dealer, s_want_t *want)
{
    drover_msg_t *list = drover_msg_new (DROVER_MSG_POOL_LIST);
    drover_msg_t *table = testutil_request (dealer, &list, 2000);
    bool shown = false, listed = false;
    for (uint32_t index = 0; table && table->id == DROVER_MSG_POOL_TABLE
                             && index < table->nrows; index++) {
        const drover_pool_row_t *row = &table->pool_rows [index];
        if (want->id && !streq (row->id, want->id))
            continue;
        if (want->other_than && streq (row->id, want->other_than))
            continue;
        listed = true;
        if (row->state == want->state && !shown) {
            shown = true;
            strcpy (want->found, row->id);
        }
        if (want->state == -1 && row->state == DROVER_POOL_STATE_MAX)
            shown = true;       //  shutting down: going
    }
    if (want->state == -1 && table && !listed)
        shown = true;           //  gone
    drover_msg_destroy (&table);
    return shown;
}

//  Wait until the pool shows what want asks; fail after timeout msec
static void
s_await_pool (zsock_t *dealer, s_want_t *want, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (!s_pool_shows (dealer, want)) {
        if (zclock_mono () > deadline)
            fail_msg ("the pool never showed %s %s", want->id? want->id: "an instance",
                      want->state >= 0? drover_pool_state_name (want->state): "gone");
        zclock_sleep (50);      //  paces the questions; the deadline bounds the wait
    }
}

//  Stop the `drover worker` processes still connected to endpoint (the
//  pool's, which a broker stopped does not take down)
static void
s_stop_pool_workers (const char *endpoint)
{
    pid_t pids [64];
    size_t count = testutil_worker_pids (endpoint, pids, 64);
    for (size_t index = 0; index < count; index++)
        testutil_stop (pids [index], 5000);
}

//  Copy the raw value of member name in the JSON object of instance id
//  (a string without its quotes) into value; fails if it is not there
static void
s_instance_member (const char *json, const char *id, const char *name, char *value,
                   size_t size)
{
    char needle [DROVER_ID_MAX + 16];
    snprintf (needle, sizeof needle, "{\"id\":\"%s\",", id);
    const char *row = strstr (json, needle);
    if (!row)
        fail_msg ("no instance %s in:\n%s", id, json);
    const char *end = strchr (row, '}');
    char member [64];
    snprintf (member, sizeof member, ",\"%s\":", name);
    const char *at = strstr (row, member);
    if (!at || at > end)
        fail_msg ("instance %s has no %s in:\n%s", id, name, json);
    at += strlen (member);
    if (*at == '"')
        at++;
    size_t length = strcspn (at, "\",}");
    snprintf (value, size, "%.*s", (int) length, at);
}

//  Assert an instance's last_busy is a time in ISO 8601 UTC between
//  after and before (msec since the epoch, whole seconds apart)
static void
s_expect_time_between (const char *text, int64_t after, int64_t before)
{
    struct tm parts;
    memset (&parts, 0, sizeof parts);
    int msec, length = 0;
    if (sscanf (text, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &parts.tm_year, &parts.tm_mon,
                &parts.tm_mday, &parts.tm_hour, &parts.tm_min, &parts.tm_sec, &msec,
                &length) != 7 || length != 24 || text [length])
        fail_msg ("'%s' is not a time in ISO 8601 UTC", text);
    parts.tm_year -= 1900;
    parts.tm_mon -= 1;
    int64_t seconds = (int64_t) timegm (&parts);
    if (seconds < after / 1000 || seconds > before / 1000 + 1)
        fail_msg ("'%s' is not between %lld and %lld", text, (long long) after / 1000,
                  (long long) before / 1000);
}

//  An instance's JSON view tells its price, and the task it last ran and
//  when it was last seen busy: none before, then the task while it runs
//  (state running), and still after it ended (state idle)
static void
s_expect_last_task (testutil_cluster_t *cluster, zsock_t *dealer, testutil_cli_t *run,
                    const char *instance)
{
    const char *json [] = { "pool", "--json", NULL };
    char value [64];
    testutil_cli (cluster->endpoint, json, run);
    testutil_cli_expect (run, 0, run->out, "\"price\":0.1,");
    s_instance_member (run->out, instance, "price", value, sizeof value);
    assert_string_equal (value, "0.1");
    s_instance_member (run->out, instance, "last_busy", value, sizeof value);
    assert_string_equal (value, "");
    s_instance_member (run->out, instance, "last_task", value, sizeof value);
    assert_string_equal (value, "0");

    char release [PATH_MAX], script [PATH_MAX + 64];
    snprintf (release, sizeof release, "%s", testutil_cluster_log (cluster, "release"));
    snprintf (script, sizeof script, "while [ ! -e %s ]; do sleep 0.05; done", release);
    int64_t submitted = zclock_time ();
    uint64_t task = testutil_submit (dealer, testutil_submit_msg (script, 0, 1,
                                                                  DROVER_SUBMIT_NOTIFY));
    char id [24];
    snprintf (id, sizeof id, "%" PRIu64, task);
    s_want_t want = { instance, NULL, DROVER_INSTANCE_RUNNING, "" };
    s_await_pool (dealer, &want, 30000);
    testutil_cli (cluster->endpoint, json, run);
    testutil_assert_json (run->out);
    s_instance_member (run->out, instance, "state", value, sizeof value);
    assert_string_equal (value, "running");
    s_instance_member (run->out, instance, "last_task", value, sizeof value);
    assert_string_equal (value, id);
    s_instance_member (run->out, instance, "last_busy", value, sizeof value);
    s_expect_time_between (value, submitted, zclock_time ());
    s_instance_member (run->out, instance, "procs_used", value, sizeof value);
    assert_string_equal (value, "1");

    FILE *file = fopen (release, "w");
    assert_non_null (file);
    fclose (file);
    drover_msg_t *done = testutil_expect_done (dealer, task, DROVER_TASK_SUCCEEDED, 15000);
    assert_string_equal (done->worker, instance);
    drover_msg_destroy (&done);
    int64_t ended = zclock_time ();
    want = (s_want_t) { instance, NULL, DROVER_INSTANCE_IDLE, "" };
    s_await_pool (dealer, &want, 30000);
    testutil_cli (cluster->endpoint, json, run);
    s_instance_member (run->out, instance, "last_task", value, sizeof value);
    assert_string_equal (value, id);
    s_instance_member (run->out, instance, "last_busy", value, sizeof value);
    s_expect_time_between (value, submitted, ended);
    s_instance_member (run->out, instance, "tasks", value, sizeof value);
    assert_string_equal (value, "0");
    //  The text view's LAST-TASK column says it too
    const char *list [] = { "pool", NULL };
    testutil_cli (cluster->endpoint, list, run);
    const char *line = strstr (run->out, instance);
    assert_non_null (line);
    char *row = strndup (line, strcspn (line, "\n"));
    if (!strstr (row, id) || !strstr (row, " ago"))
        fail_msg ("the row of %s shows no last task %s, or no last busy: %s", instance, id, row);
    free (row);
}

//  The pool through the CLI: an instance listed (text and JSON); hold and
//  run show in the list; an unknown id is 404 and exit 1; drain takes the
//  idle instance away, the minimum brings another, destroy takes that one
//  away and nothing more can be asked of it
static void
test_pool_listed_and_steered (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (s_pool_flags);
    zsock_t *dealer = testutil_dealer (cluster);
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    s_want_t want = { NULL, NULL, DROVER_INSTANCE_IDLE, "" };
    s_await_pool (dealer, &want, 30000);
    char first [DROVER_ID_MAX + 1];
    strcpy (first, want.found);
    assert_non_null (strstr (first, "POOL-"));

    const char *list [] = { "pool", NULL };
    testutil_cli (cluster->endpoint, list, run);
    testutil_cli_expect (run, 0, run->out, "ID ");
    testutil_cli_expect (run, 0, run->out, "LAST-BUSY");
    testutil_cli_expect (run, 0, run->out, first);
    testutil_cli_expect (run, 0, run->out, "small");
    testutil_cli_expect (run, 0, run->out, "idle");
    testutil_cli_expect (run, 0, run->out, "instances 1/2, price per hour 0.10/no limit");
    const char *json [] = { "pool", "--json", NULL };
    testutil_cli (cluster->endpoint, json, run);
    testutil_cli_expect (run, 0, run->out, "\"enabled\":true,\"driver\":\"local\",\"live\":1");
    testutil_cli_expect (run, 0, run->out, "\"state\":\"idle\",\"behaviour\":\"run\"");
    testutil_assert_json (run->out);
    s_expect_last_task (cluster, dealer, run, first);

    //  Hold, then run: the list shows each
    const char *hold [] = { "pool", "hold", first, NULL };
    testutil_cli (cluster->endpoint, hold, run);
    testutil_cli_expect (run, 0, run->out, "held");
    testutil_cli (cluster->endpoint, json, run);
    testutil_cli_expect (run, 0, run->out, "\"behaviour\":\"hold\"");
    const char *resume [] = { "pool", "run", first, "--json", NULL };
    testutil_cli (cluster->endpoint, resume, run);
    testutil_cli_expect (run, 0, run->out, "\"ok\":true,\"code\":200");
    testutil_assert_json (run->out);
    testutil_cli (cluster->endpoint, json, run);
    testutil_cli_expect (run, 0, run->out, "\"behaviour\":\"run\"");

    //  An instance the pool does not have
    const char *unknown [] = { "pool", "hold", "POOL-nope-1", NULL };
    testutil_cli (cluster->endpoint, unknown, run);
    testutil_cli_expect (run, 1, run->err, "not found (404)");
    testutil_cli_expect (run, 1, run->err, "POOL-nope-1");

    //  Drain: idle, so it goes; the minimum brings another
    const char *drain [] = { "pool", "drain", first, NULL };
    testutil_cli (cluster->endpoint, drain, run);
    testutil_cli_expect (run, 0, run->out, "draining");
    want = (s_want_t) { first, NULL, -1, "" };
    s_await_pool (dealer, &want, 30000);
    want = (s_want_t) { NULL, first, DROVER_INSTANCE_IDLE, "" };
    s_await_pool (dealer, &want, 30000);
    char second [DROVER_ID_MAX + 1];
    strcpy (second, want.found);

    //  Destroy it: it goes, and nothing more can be asked of it
    const char *destroy [] = { "pool", "destroy", second, NULL };
    testutil_cli (cluster->endpoint, destroy, run);
    testutil_cli_expect (run, 0, run->out, "destroying");
    want = (s_want_t) { second, NULL, -1, "" };
    s_await_pool (dealer, &want, 30000);
    const char *again [] = { "pool", "hold", second, NULL };
    testutil_cli (cluster->endpoint, again, run);
    if (run->status != 1 || !(strstr (run->err, "(404)") || strstr (run->err, "(410)")))
        fail_msg ("hold of a destroyed instance: status %d, %s", run->status, run->err);

    free (run);
    zsock_destroy (&dealer);
    char endpoint [64];
    strcpy (endpoint, cluster->endpoint);
    testutil_cluster_destroy (&cluster);
    s_stop_pool_workers (endpoint);
}

//  Without a pool, every pool command says so and exits 1; the list's
//  --json is still a document (enabled false)
static void
test_no_pool_configured (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));

    const char *list [] = { "pool", NULL };
    testutil_cli (cluster->endpoint, list, run);
    testutil_cli_expect (run, 1, run->err, "no pool configured");
    assert_string_equal (run->out, "");

    const char *json [] = { "pool", "--json", NULL };
    testutil_cli (cluster->endpoint, json, run);
    testutil_cli_expect (run, 1, run->out, "\"enabled\":false");
    testutil_assert_json (run->out);
    testutil_cli_expect (run, 1, run->err, "no pool configured");

    const char *actions [] = { "hold", "drain", "run", "destroy" };
    for (int index = 0; index < 4; index++) {
        const char *admin [] = { "pool", actions [index], "POOL-x-1", NULL };
        testutil_cli (cluster->endpoint, admin, run);
        testutil_cli_expect (run, 1, run->err, "no pool configured");
        testutil_cli_expect (run, 1, run->err, "503");
    }
    const char *admin_json [] = { "pool", "hold", "POOL-x-1", "POOL-x-2", "--json", NULL };
    testutil_cli (cluster->endpoint, admin_json, run);
    testutil_cli_expect (run, 1, run->out, "\"ok\":false,\"code\":503");
    testutil_assert_json (run->out);
    assert_non_null (strstr (run->out, "\"id\":\"POOL-x-2\""));    //  each id is asked

    free (run);
    testutil_cluster_destroy (&cluster);
}

//  What the CLI cannot use exits 2 with a message and asks nothing: an
//  unknown action (with the nearest one), no instance, a bad id, an extra
//  argument, an unknown flag
static void
test_bad_arguments (void **state)
{
    //  No broker at this endpoint: a request would fail with 1, not 2
    char nobody [64];
    snprintf (nobody, sizeof nobody, "tcp://127.0.0.1:%d", testutil_free_port ());
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    const char *typo [] = { "pool", "hodl", "POOL-1", NULL };
    testutil_cli (nobody, typo, run);
    testutil_cli_expect (run, 2, run->err, "did you mean 'hold'?");
    const char *unknown [] = { "pool", "explode", "POOL-1", NULL };
    testutil_cli (nobody, unknown, run);
    testutil_cli_expect (run, 2, run->err, "unknown action 'explode'");
    const char *none [] = { "pool", "destroy", NULL };
    testutil_cli (nobody, none, run);
    testutil_cli_expect (run, 2, run->err, "which instance?");
    const char *bad_id [] = { "pool", "drain", "POOL 1", NULL };
    testutil_cli (nobody, bad_id, run);
    testutil_cli_expect (run, 2, run->err, "is not an instance id");
    const char *extra [] = { "pool", "list", "more", NULL };
    testutil_cli (nobody, extra, run);
    testutil_cli_expect (run, 2, run->err, "unexpected argument 'more'");
    const char *flag [] = { "pool", "--all", NULL };
    testutil_cli (nobody, flag, run);
    testutil_cli_expect (run, 2, run->err, "unknown option '--all'");
    const char *help [] = { "pool", "--help", NULL };
    testutil_cli (nobody, help, run);
    testutil_cli_expect (run, 0, run->out, "drover pool destroy ID...");
    free (run);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_pool_listed_and_steered),
        cmocka_unit_test (test_no_pool_configured),
        cmocka_unit_test (test_bad_arguments),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
