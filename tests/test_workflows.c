/*  =========================================================================
    test_workflows - tasks that wait for other tasks, arrays, begin times
    and retries with backoff, end to end: a real broker, real workers, real
    child processes; what ended how is counted at the wire (TASK DONE), and
    what ran when is told by the tasks themselves, in files they write
    =========================================================================
*/

#include "testutil_cluster.h"
#include <dirent.h>

#define S_WAIT      30000       //  msec a test's tasks may take at most

//  Submit script on dealer with kind/parent pairs (count of them; kind -1
//  ends early); returns the id, asserting it was accepted
static uint64_t
s_submit (zsock_t *dealer, const char *script, const drover_after_t *after, uint32_t count)
{
    drover_msg_t *msg = testutil_submit_msg (script, 0, 1, 0);
    if (count) {
        msg->after = (drover_after_t *) zmalloc (count * sizeof (drover_after_t));
        memcpy (msg->after, after, count * sizeof (drover_after_t));
        msg->nafter = count;
    }
    drover_msg_t *reply = testutil_request (dealer, &msg, 5000);
    assert_non_null (reply);
    if (reply->id != DROVER_MSG_TASK_ACCEPTED)
        fail_msg ("submit refused: %u %s", reply->code, reply->reason? reply->reason: "");
    uint64_t task = reply->task;
    drover_msg_destroy (&reply);
    return task;
}

//  One TASK DONE as the wire said it
typedef struct {
    uint64_t task;
    int state;
    int end;
    int dones;                  //  how many DONEs came for it
} s_done_t;

//  Wait for count tasks and gather one entry each (dones counts repeats)
static void
s_wait_all (zsock_t *dealer, const uint64_t *tasks, uint32_t count, s_done_t *done)
{
    for (uint32_t index = 0; index < count; index++)
        done [index] = (s_done_t) { tasks [index], -1, -1, 0 };
    drover_msg_t *wait = testutil_wait_msg (tasks, count);
    wait->seq = 77;
    testutil_send (dealer, &wait);
    uint32_t ended = 0;
    int64_t deadline = zclock_mono () + S_WAIT;
    while (ended < count && zclock_mono () < deadline) {
        drover_msg_t *msg = testutil_recv_msg (dealer, 500);
        if (msg && msg->id == DROVER_MSG_TASK_DONE)
            for (uint32_t index = 0; index < count; index++)
                if (done [index].task == msg->task) {
                    if (done [index].dones++ == 0)
                        ended++;
                    done [index].state = msg->state;
                    done [index].end = msg->end;
                }
        drover_msg_destroy (&msg);
    }
    assert_int_equal (ended, count);
    drover_msg_t *late;
    while ((late = testutil_recv_msg (dealer, 300))) {      //  nothing twice
        assert_int_not_equal (late->id, DROVER_MSG_TASK_DONE);
        drover_msg_destroy (&late);
    }
}

//  Tell whether a file exists
static bool
s_exists (const char *dir, const char *name)
{
    char path [512];
    snprintf (path, sizeof path, "%s/%s", dir, name);
    return access (path, F_OK) == 0;
}

//  Each kind on real processes, cascades three deep, a parent that ended
//  before its child came: every child runs or is cancelled as its kind
//  says, and the ones that ran did so after their parents (they say so)
static void
test_kinds_end_to_end (void **state)
{
    (void) state;
    testutil_cluster_t *cluster = testutil_cluster_new ((const char *[]) { NULL });
    testutil_cluster_add_worker (cluster, 0, "w1", 4, (const char *[]) { NULL });
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 15000));
    char *dir = cluster->logdir;
    char good_script [512], bad_script [512];
    snprintf (good_script, sizeof good_script, "sleep 0.3; touch %s/good", dir);
    snprintf (bad_script, sizeof bad_script, "sleep 0.3; touch %s/bad; exit 3", dir);
    uint64_t good = s_submit (dealer, good_script, NULL, 0);
    uint64_t bad = s_submit (dealer, bad_script, NULL, 0);
    char script [512];
    snprintf (script, sizeof script, "test -e %s/good && touch %s/ok", dir, dir);
    uint64_t ok = s_submit (dealer, script, &(drover_after_t) { DROVER_AFTER_OK, good }, 1);
    snprintf (script, sizeof script, "test -e %s/bad && touch %s/any", dir, dir);
    uint64_t any = s_submit (dealer, script, &(drover_after_t) { DROVER_AFTER_ANY, bad }, 1);
    snprintf (script, sizeof script, "test -e %s/bad && touch %s/fail", dir, dir);
    uint64_t fail = s_submit (dealer, script, &(drover_after_t) { DROVER_AFTER_FAIL, bad }, 1);
    snprintf (script, sizeof script, "touch %s/unneeded", dir);
    uint64_t unneeded = s_submit (dealer, script, &(drover_after_t) { DROVER_AFTER_FAIL, good },
                                  1);
    snprintf (script, sizeof script, "touch %s/doomed", dir);
    uint64_t doomed = s_submit (dealer, script, &(drover_after_t) { DROVER_AFTER_OK, bad }, 1);
    uint64_t second = s_submit (dealer, script, &(drover_after_t) { DROVER_AFTER_OK, doomed }, 1);
    uint64_t third = s_submit (dealer, script, &(drover_after_t) { DROVER_AFTER_OK, second }, 1);
    //  after-any of a task cancelled by its dependency: it ended, so it runs
    snprintf (script, sizeof script, "touch %s/anyway", dir);
    uint64_t anyway = s_submit (dealer, script, &(drover_after_t) { DROVER_AFTER_ANY, second },
                                1);
    uint64_t tasks [] = { good, bad, ok, any, fail, unneeded, doomed, second, third, anyway };
    s_done_t done [10];
    s_wait_all (dealer, tasks, 10, done);
    int expected [][2] = {
        { DROVER_TASK_SUCCEEDED, DROVER_END_SUCCEEDED }, { DROVER_TASK_FAILED, DROVER_END_FAILED },
        { DROVER_TASK_SUCCEEDED, DROVER_END_SUCCEEDED }, { DROVER_TASK_SUCCEEDED, DROVER_END_SUCCEEDED },
        { DROVER_TASK_SUCCEEDED, DROVER_END_SUCCEEDED },
        { DROVER_TASK_CANCELLED, DROVER_END_DEPENDENCY }, { DROVER_TASK_CANCELLED, DROVER_END_DEPENDENCY },
        { DROVER_TASK_CANCELLED, DROVER_END_DEPENDENCY }, { DROVER_TASK_CANCELLED, DROVER_END_DEPENDENCY },
        { DROVER_TASK_SUCCEEDED, DROVER_END_SUCCEEDED }
    };
    for (int index = 0; index < 10; index++) {
        assert_int_equal (done [index].dones, 1);
        if (done [index].state != expected [index][0] || done [index].end != expected [index][1])
            fail_msg ("task %" PRIu64 " ended %d/%d, not %d/%d", done [index].task,
                      done [index].state, done [index].end, expected [index][0],
                      expected [index][1]);
    }
    assert_false (s_exists (dir, "unneeded"));
    assert_false (s_exists (dir, "doomed"));
    assert_true (s_exists (dir, "ok") && s_exists (dir, "any") && s_exists (dir, "fail"));
    assert_true (s_exists (dir, "anyway"));
    //  A parent that ended before its child came releases or dooms it at once
    snprintf (script, sizeof script, "touch %s/late", dir);
    uint64_t late = s_submit (dealer, script, &(drover_after_t) { DROVER_AFTER_OK, good }, 1);
    uint64_t never = s_submit (dealer, script, &(drover_after_t) { DROVER_AFTER_OK, bad }, 1);
    s_wait_all (dealer, (uint64_t []) { late, never }, 2, done);
    assert_int_equal (done [0].state, DROVER_TASK_SUCCEEDED);
    assert_int_equal (done [1].end, DROVER_END_DEPENDENCY);
    //  A parent that does not exist is refused
    drover_msg_t *msg = testutil_submit_msg ("true", 0, 1, 0);
    msg->after = (drover_after_t *) zmalloc (sizeof (drover_after_t));
    msg->after [0] = (drover_after_t) { DROVER_AFTER_OK, 999999 };
    msg->nafter = 1;
    drover_msg_t *reply = testutil_request (dealer, &msg, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_NOT_FOUND);
    drover_msg_destroy (&reply);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Write a workflow file into dir; returns its path (static)
static const char *
s_workflow_file (const char *dir, const char *name, const char *text)
{
    static char path [512];
    snprintf (path, sizeof path, "%s/%s", dir, name);
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fputs (text, file);
    fclose (file);
    return path;
}

//  A workflow file with a cycle, an unknown name or a duplicate is refused
//  whole, naming the line, and nothing is submitted; a good one runs
static void
test_workflow_files (void **state)
{
    (void) state;
    testutil_cluster_t *cluster = testutil_cluster_new ((const char *[]) { NULL });
    testutil_cluster_add_worker (cluster, 0, "w1", 4, (const char *[]) { NULL });
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 15000));
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    const char *bad [][3] = {
        { "cycle.flow", "a: --after c -- true\nb: --after a -- true\nc: --after b -- true\n",
          "cycle" },
        { "unknown.flow", "fetch: true\n\nmerge: --after fecth -- true\n", "unknown.flow:3" },
        { "twice.flow", "fetch: true\nfetch: true\n", "twice.flow:2" },
    };
    for (int index = 0; index < 3; index++) {
        const char *path = s_workflow_file (cluster->logdir, bad [index][0], bad [index][1]);
        testutil_cli (cluster->endpoint, (const char *[]) { "submit", "--workflow", path, NULL },
                      run);
        testutil_cli_expect (run, 2, run->err, bad [index][2]);
    }
    assert_int_equal (testutil_task_count (dealer, 5000), 0);
    const char *good = s_workflow_file (cluster->logdir, "good.flow",
        "# fetch, transform each part, merge; clean up if anything failed\n"
        "fetch:     true\n"
        "transform: --after fetch --array 0-5%2 -- sh -c 'test -n \"$DROVER_ARRAY_INDEX\"'\n"
        "merge:     --after transform -- true\n"
        "cleanup:   --after-fail merge -- true\n");
    testutil_cli (cluster->endpoint, (const char *[]) { "submit", "--workflow", good, "--json",
                                                        NULL }, run);
    testutil_cli_expect (run, 0, run->out, "\"workflow\"");
    testutil_assert_json (run->out);
    uint64_t workflow = strtoull (strstr (run->out, "\"workflow\"") + 11, NULL, 10);
    assert_true (workflow > 0);
    s_done_t done;
    s_wait_all (dealer, &workflow, 1, &done);
    assert_int_equal (done.state, DROVER_TASK_SUCCEEDED);
    free (run);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  An array with %MAX never runs more than MAX at once: each element
//  counts, while it runs, the elements running beside it (files they
//  hold), as the workers see it; the array ends once all have
static void
test_array_limit_counted_by_workers (void **state)
{
    (void) state;
    testutil_cluster_t *cluster = testutil_cluster_new ((const char *[]) { NULL });
    testutil_cluster_add_worker (cluster, 0, "w1", 8, (const char *[]) { NULL });
    testutil_cluster_add_worker (cluster, 1, "w2", 8, (const char *[]) { NULL });
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 2, 15000));
    char script [1024];
    snprintf (script, sizeof script,
              "d=%s; mkdir -p $d/run $d/seen; touch $d/run/$DROVER_TASK_ID;"
              " ls $d/run | wc -l > $d/seen/$DROVER_ARRAY_INDEX; sleep 0.3;"
              " rm $d/run/$DROVER_TASK_ID", cluster->logdir);
    drover_msg_t *msg = testutil_submit_msg (script, 0, 1, 0);
    msg->array = (drover_array_spec_t) { 0, 1, 12, 3 };
    drover_msg_t *reply = testutil_request (dealer, &msg, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_TASK_ACCEPTED);
    uint64_t array = reply->task;
    drover_msg_destroy (&reply);
    s_done_t done;
    s_wait_all (dealer, &array, 1, &done);
    assert_int_equal (done.state, DROVER_TASK_SUCCEEDED);
    int most = 0, seen = 0;
    for (int index = 0; index < 12; index++) {
        char path [512];
        snprintf (path, sizeof path, "%s/seen/%d", cluster->logdir, index);
        FILE *file = fopen (path, "r");
        assert_non_null (file);
        int running = 0;
        assert_int_equal (fscanf (file, "%d", &running), 1);
        fclose (file);
        most = running > most? running: most;
        seen++;
    }
    assert_int_equal (seen, 12);
    assert_true (most <= 3);
    assert_true (most >= 2);            //  they did run side by side
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  kill -9 of the broker mid-graph: after the restart every task ends
//  once (counted at the wire), each link after its parent (it checks)
static void
test_kill9_mid_graph (void **state)
{
    (void) state;
    enum { S_CHAINS = 4, S_LINKS = 5 };
    testutil_cluster_t *cluster = testutil_cluster_new ((const char *[]) { NULL });
    testutil_cluster_add_worker (cluster, 0, "w1", 4, (const char *[]) { NULL });
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 15000));
    uint64_t tasks [S_CHAINS * S_LINKS];
    for (int chain = 0; chain < S_CHAINS; chain++)
        for (int link = 0; link < S_LINKS; link++) {
            //  Each link fails (exit 9) if it runs before its parent ended
            char check [64] = "";
            if (link)
                snprintf (check, sizeof check, "test -e $d/c%d-%d || exit 9;", chain, link - 1);
            char script [512];
            snprintf (script, sizeof script, "d=%s; %s sleep 0.4; touch $d/c%d-%d",
                      cluster->logdir, check, chain, link);
            uint64_t parent = link? tasks [chain * S_LINKS + link - 1]: 0;
            tasks [chain * S_LINKS + link] = s_submit (dealer, script,
                &(drover_after_t) { DROVER_AFTER_OK, parent }, link? 1: 0);
        }
    //  Once some links ended (the second of chain 0), not all
    s_done_t second;
    s_wait_all (dealer, &tasks [1], 1, &second);
    assert_int_equal (second.state, DROVER_TASK_SUCCEEDED);
    assert_true (s_exists (cluster->logdir, "c0-1"));
    assert_false (s_exists (cluster->logdir, "c0-4"));
    zsock_destroy (&dealer);
    testutil_cluster_kill_restart (cluster, NULL);
    dealer = testutil_dealer (cluster);
    s_done_t done [S_CHAINS * S_LINKS];
    s_wait_all (dealer, tasks, S_CHAINS * S_LINKS, done);
    for (int index = 0; index < S_CHAINS * S_LINKS; index++) {
        assert_int_equal (done [index].dones, 1);
        if (done [index].state != DROVER_TASK_SUCCEEDED)
            fail_msg ("task %" PRIu64 " ended %d", done [index].task, done [index].state);
    }
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Read the times (msec) a retried task's attempts wrote, one per line
static int
s_read_times (const char *path, int64_t *times, int max)
{
    FILE *file = fopen (path, "r");
    if (!file)
        return 0;
    int count = 0;
    long long value;
    while (count < max && fscanf (file, "%lld", &value) == 1)
        times [count++] = value / 1000000;
    fclose (file);
    return count;
}

//  Retries with a delay are spaced by at least the delay (less its 20%
//  jitter), doubling; the last failure ends the task FAILED. A begin time
//  holds a task until then.
static void
test_retry_spacing_and_begin (void **state)
{
    (void) state;
    testutil_cluster_t *cluster = testutil_cluster_new ((const char *[]) { NULL });
    testutil_cluster_add_worker (cluster, 0, "w1", 4, (const char *[]) { NULL });
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 15000));
    char script [512];
    snprintf (script, sizeof script, "date +%%s%%N >> %s/attempts; exit 1", cluster->logdir);
    drover_msg_t *msg = testutil_submit_msg (script, 0, 1, 0);
    msg->retries = 2;
    msg->retry_delay = 700;
    drover_msg_t *reply = testutil_request (dealer, &msg, 5000);
    assert_int_equal (reply->id, DROVER_MSG_TASK_ACCEPTED);
    uint64_t retried = reply->task;
    drover_msg_destroy (&reply);
    int64_t begin = zclock_time () + 1500;
    snprintf (script, sizeof script, "date +%%s%%N > %s/begun", cluster->logdir);
    msg = testutil_submit_msg (script, 0, 1, 0);
    msg->begin = (uint64_t) begin;
    reply = testutil_request (dealer, &msg, 5000);
    assert_int_equal (reply->id, DROVER_MSG_TASK_ACCEPTED);
    uint64_t deferred = reply->task;
    drover_msg_destroy (&reply);
    s_done_t done [2];
    s_wait_all (dealer, (uint64_t []) { retried, deferred }, 2, done);
    assert_int_equal (done [0].state, DROVER_TASK_FAILED);
    assert_int_equal (done [1].state, DROVER_TASK_SUCCEEDED);
    char path [512];
    int64_t times [4];
    snprintf (path, sizeof path, "%s/attempts", cluster->logdir);
    assert_int_equal (s_read_times (path, times, 4), 3);
    assert_true (times [1] - times [0] >= 700 * 8 / 10);
    assert_true (times [2] - times [1] >= 1400 * 8 / 10);
    snprintf (path, sizeof path, "%s/begun", cluster->logdir);
    assert_int_equal (s_read_times (path, times, 1), 1);
    assert_true (times [0] >= begin);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

//  Send msg (destroyed) as a peer of level 2 encodes it
static void
s_send_level_2 (zsock_t *dealer, drover_msg_t **msg_p)
{
    zframe_t *frame = drover_msg_encode_level (*msg_p, 2);
    assert_non_null (frame);
    assert_int_equal (zframe_send (&frame, dealer, 0), 0);
    drover_msg_destroy (msg_p);
}

//  A client of the previous release (level 2) keeps working with this
//  broker: it submits and waits as before, and of a workflow's tasks it
//  sees only what level 2 knows: a task cancelled by its dependency is
//  CANCELLED (end CANCELLED), a held task's row has no waits, group or
//  parents, and its explanation lists nothing it cannot read
static void
test_level_2_client (void **state)
{
    (void) state;
    testutil_cluster_t *cluster = testutil_cluster_new ((const char *[]) { NULL });
    testutil_cluster_add_worker (cluster, 0, "w1", 2, (const char *[]) { NULL });
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 15000));
    zsock_t *old = testutil_dealer_level_1 (cluster);
    drover_msg_t *hello = drover_msg_new (DROVER_MSG_CLIENT_HELLO);
    hello->level = 2;
    s_send_level_2 (old, &hello);
    drover_msg_t *welcome = testutil_recv_msg (old, 5000);
    assert_non_null (welcome);
    assert_int_equal (welcome->id, DROVER_MSG_CLIENT_WELCOME);
    assert_int_equal (welcome->level, DROVER_MSG_LEVEL);
    drover_msg_destroy (&welcome);
    //  A plain submit and wait, as level 2 sends them
    drover_msg_t *submit = testutil_submit_msg ("sleep 1; exit 4", 0, 1, 0);
    submit->seq = 1;
    s_send_level_2 (old, &submit);
    drover_msg_t *reply = testutil_recv_msg (old, 5000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_TASK_ACCEPTED);
    uint64_t parent = reply->task;
    drover_msg_destroy (&reply);
    //  A level-3 client makes a child of it, held, and a grandchild
    char script [64] = "true";
    uint64_t child = s_submit (dealer, script, &(drover_after_t) { DROVER_AFTER_OK, parent }, 1);
    drover_msg_t *list = drover_msg_new (DROVER_MSG_TASK_LIST);
    list->seq = 2;
    list->limit = 10;
    list->state = 255;
    s_send_level_2 (old, &list);
    drover_msg_t *table = NULL;
    for (int tries = 0; tries < 10 && !table; tries++) {
        drover_msg_t *msg = testutil_recv_msg (old, 5000);
        assert_non_null (msg);
        if (msg->id == DROVER_MSG_TASK_TABLE)
            table = msg;
        else
            drover_msg_destroy (&msg);
    }
    assert_non_null (table);
    for (uint32_t row = 0; row < table->nrows; row++) {
        assert_int_equal (table->task_rows [row].waits, 0);
        assert_int_equal (table->task_rows [row].parents, 0);
    }
    drover_msg_destroy (&table);
    //  Why the held child waits: nothing a level-2 client could read
    drover_msg_t *explain = drover_msg_new (DROVER_MSG_TASK_EXPLAIN);
    explain->seq = 4;
    explain->task = child;
    s_send_level_2 (old, &explain);
    drover_msg_t *explanation = testutil_recv_msg (old, 5000);
    assert_non_null (explanation);
    assert_int_equal (explanation->id, DROVER_MSG_TASK_EXPLANATION);
    assert_int_equal (explanation->state, DROVER_TASK_QUEUED);
    assert_int_equal (explanation->nwhys, 0);
    drover_msg_destroy (&explanation);
    drover_msg_t *wait = testutil_wait_msg ((uint64_t []) { parent, child }, 2);
    wait->seq = 3;
    s_send_level_2 (old, &wait);
    int dones = 0;
    int64_t deadline = zclock_mono () + S_WAIT;
    while (dones < 2 && zclock_mono () < deadline) {
        drover_msg_t *msg = testutil_recv_msg (old, 500);
        if (msg && msg->id == DROVER_MSG_TASK_DONE) {
            dones++;
            if (msg->task == child) {
                assert_int_equal (msg->state, DROVER_TASK_CANCELLED);
                assert_int_equal (msg->end, DROVER_END_CANCELLED);     //  not DEPENDENCY
            }
            else
                assert_int_equal (msg->state, DROVER_TASK_FAILED);
        }
        drover_msg_destroy (&msg);
    }
    assert_int_equal (dones, 2);
    //  The level-3 client is told the dependency
    s_done_t done;
    s_wait_all (dealer, &child, 1, &done);
    assert_int_equal (done.end, DROVER_END_DEPENDENCY);
    zsock_destroy (&old);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_kinds_end_to_end),
        cmocka_unit_test (test_workflow_files),
        cmocka_unit_test (test_array_limit_counted_by_workers),
        cmocka_unit_test (test_kill9_mid_graph),
        cmocka_unit_test (test_retry_spacing_and_begin),
        cmocka_unit_test (test_level_2_client),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
