/*  =========================================================================
    test_durable_restart - a broker killed with SIGKILL and started again
    on its state directory loses nothing it acknowledged (tasks, events,
    services' definitions)

    Real processes over loopback TCP: the drover broker (durability full,
    the default), real worker agents running real child processes, and
    the test as a client speaking the codec, so that every TASK DONE is
    counted at the wire.
    =========================================================================
*/

#define _GNU_SOURCE             //  unshare (2)
#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "testutil_signals.h"
#include "drover_exec.h"
#include <sched.h>
#include <sys/mount.h>

//  Submit count tasks of script; fill ids, in order
static void
s_submit_many (zsock_t *client, const char *script, uint64_t *ids, int count)
{
    for (int index = 0; index < count; index++) {
        drover_msg_t *submit = testutil_submit_msg (script, 0, 1, 0);
        ids [index] = testutil_submit (client, submit);
    }
}

//  The TASK TABLE the broker answers now (limit rows); the caller destroys it
static drover_msg_t *
s_list (zsock_t *client, uint32_t limit)
{
    drover_msg_t *list = drover_msg_new (DROVER_MSG_TASK_LIST);
    list->state = 255;
    list->limit = limit;
    drover_msg_t *table = testutil_request (client, &list, 10000);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_TASK_TABLE);
    return table;
}

//  Queued tasks survive kill -9 with their ids; the next id is new; a
//  worker that comes later runs each exactly once
static void
test_queued_tasks_survive_kill (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    zsock_t *client = testutil_dealer (cluster);
    enum { S_TASKS = 300 };
    uint64_t ids [S_TASKS];
    s_submit_many (client, "true", ids, S_TASKS);

    testutil_cluster_kill_restart (cluster, NULL);
    zsock_destroy (&client);
    client = testutil_dealer (cluster);
    drover_msg_t *table = s_list (client, 10);
    assert_int_equal (table->counts [DROVER_TASK_QUEUED], S_TASKS);
    drover_msg_destroy (&table);
    uint64_t next = testutil_submit (client, testutil_submit_msg ("true", 0, 1, 0));
    assert_true (next > ids [S_TASKS - 1]);         //  never an id given before

    uint64_t all [S_TASKS + 1];
    memcpy (all, ids, sizeof ids);
    all [S_TASKS] = next;
    drover_msg_t *wait = testutil_wait_msg (all, S_TASKS + 1);
    drover_msg_t *ok = testutil_request (client, &wait, 10000);
    assert_non_null (ok);
    assert_int_equal (ok->code, 200);
    drover_msg_destroy (&ok);
    testutil_cluster_add_worker (cluster, 0, "w-after", 4, NULL);
    testutil_expect_all_succeeded (client, all, S_TASKS + 1, 60000);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

//  Two workers run six long tasks; the broker is killed and started again:
//  every attempt is adopted (the same processes finish: their pids, which
//  each task writes when it starts and again when it ends, agree; attempt
//  1 throughout) and each result reaches the client once. (A task gives
//  up waiting after 30 s, so a failed run leaves nothing behind.)
static void
test_busy_workers_adopted (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    zsock_t *client = testutil_dealer (cluster);
    testutil_cluster_add_worker (cluster, 0, "w-one", 3, NULL);
    testutil_cluster_add_worker (cluster, 1, "w-two", 3, NULL);
    assert_true (testutil_wait_workers (client, 2, 10000));
    enum { S_TASKS = 6 };
    uint64_t ids [S_TASKS];
    char script [PATH_MAX + 96];
    snprintf (script, sizeof script,
              "echo $$ > %s/started.$$; i=0; while [ ! -e %s/go ] && [ $i -lt 600 ]; "
              "do sleep 0.05; i=$((i + 1)); done; echo $$",
              cluster->logdir, cluster->logdir);
    for (int index = 0; index < S_TASKS; index++) {
        drover_msg_t *submit = testutil_submit_msg (script, 0, 1, DROVER_SUBMIT_NOTIFY);
        ids [index] = testutil_submit (client, submit);
    }
    char worker [DROVER_ID_MAX + 1];
    for (int index = 0; index < S_TASKS; index++)
        assert_true (testutil_wait_running (client, ids [index], worker, 10000));

    testutil_cluster_kill_restart (cluster, NULL);
    zsock_destroy (&client);
    client = testutil_dealer (cluster);
    //  Both workers come back and report what they run
    assert_true (testutil_await_worker_state (client, "w-one", DROVER_WORKER_UP, 10000));
    assert_true (testutil_await_worker_state (client, "w-two", DROVER_WORKER_UP, 10000));
    drover_msg_t *wait = testutil_wait_msg (ids, S_TASKS);
    drover_msg_t *ok = testutil_request (client, &wait, 10000);
    assert_non_null (ok);
    drover_msg_destroy (&ok);
    char go [PATH_MAX];
    snprintf (go, sizeof go, "%s/go", cluster->logdir);
    FILE *file = fopen (go, "w");
    assert_non_null (file);
    fclose (file);

    drover_msg_t *done [S_TASKS] = { NULL };
    assert_true (testutil_collect (client, ids, done, S_TASKS, 30000));
    for (int index = 0; index < S_TASKS; index++) {
        assert_int_equal (done [index]->state, DROVER_TASK_SUCCEEDED);
        //  The process that ended is the one that started before the kill
        char pid [32] = "";
        snprintf (pid, sizeof pid, "%.*s", (int) done [index]->out_size,
                  (const char *) done [index]->out);
        pid [strcspn (pid, "\n")] = 0;
        char started [PATH_MAX];
        snprintf (started, sizeof started, "%s/started.%s", cluster->logdir, pid);
        assert_int_equal (access (started, F_OK), 0);
        drover_msg_destroy (&done [index]);
    }
    drover_msg_t *table = s_list (client, S_TASKS);
    for (uint32_t row = 0; row < table->nrows; row++)
        assert_int_equal (table->task_rows [row].attempt, 1);
    assert_int_equal (table->counts [DROVER_TASK_SUCCEEDED], S_TASKS);
    drover_msg_destroy (&table);
    //  Nothing more arrives: each result came once
    assert_null (testutil_recv_msg (client, 300));
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

//  A 2-proc worker runs 2 long tasks while 2 more wait; the broker is killed
//  and started again. The worker registers again reporting its 2 attempts:
//  they count against its procs before anything is offered to it, so the
//  2 queued tasks wait until those end (the worker never hears an offer
//  past its free procs but the one it may hold ahead), and all 4 end once.
static void
test_adopted_attempts_fill_the_worker (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    zsock_t *client = testutil_dealer (cluster);
    testutil_cluster_add_worker (cluster, 0, "w-full", 2, NULL);
    assert_true (testutil_wait_workers (client, 1, 10000));
    enum { S_TASKS = 4 };
    uint64_t ids [S_TASKS];
    char script [PATH_MAX + 96];
    snprintf (script, sizeof script,
              "i=0; while [ ! -e %s/go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done",
              cluster->logdir);
    for (int index = 0; index < S_TASKS; index++) {
        drover_msg_t *submit = testutil_submit_msg (script, 0, 1, DROVER_SUBMIT_NOTIFY);
        ids [index] = testutil_submit (client, submit);
    }
    char worker [DROVER_ID_MAX + 1];
    assert_true (testutil_wait_running (client, ids [0], worker, 10000));
    assert_true (testutil_wait_running (client, ids [1], worker, 10000));

    testutil_cluster_kill_restart (cluster, NULL);
    zsock_destroy (&client);
    client = testutil_dealer (cluster);
    assert_true (testutil_await_worker_state (client, "w-full", DROVER_WORKER_UP, 10000));
    drover_msg_t *wait = testutil_wait_msg (ids, S_TASKS);
    drover_msg_t *ok = testutil_request (client, &wait, 10000);
    assert_non_null (ok);
    assert_int_equal (ok->code, 200);
    drover_msg_destroy (&ok);
    //  Two run; of the two waiting, the worker may hold one ahead (ASSIGNED,
    //  unstarted: assign/offer-ahead is 1), never more
    drover_msg_t *table = s_list (client, S_TASKS);
    assert_int_equal (table->counts [DROVER_TASK_RUNNING], 2);
    assert_int_equal (table->counts [DROVER_TASK_QUEUED] + table->counts [DROVER_TASK_ASSIGNED], 2);
    assert_true (table->counts [DROVER_TASK_ASSIGNED] <= 1);
    drover_msg_destroy (&table);
    char go [PATH_MAX];
    snprintf (go, sizeof go, "%s/go", cluster->logdir);
    FILE *file = fopen (go, "w");
    assert_non_null (file);
    fclose (file);
    testutil_expect_all_succeeded (client, ids, S_TASKS, 30000);

    //  Every offer the worker took was logged before its result came (an
    //  offer past its procs is seen only by the worker, which warns of it)
    assert_int_equal (testutil_count_lines_with (testutil_cluster_log (cluster, "w-full"),
                                                 "offer past free procs"), 0);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

//  Order two task ids, for qsort
static int
s_compare_ids (const void *one, const void *other)
{
    uint64_t first = *(const uint64_t *) one, second = *(const uint64_t *) other;
    return first < second? -1: first > second? 1: 0;
}

//  The events of a task replayed from the store after a kill -9 are the
//  ones a live subscriber saw, seq for seq
static void
test_events_replayed_across_restart (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    zsock_t *client = testutil_dealer (cluster);
    testutil_cluster_add_worker (cluster, 0, "w-events", 2, NULL);
    assert_true (testutil_wait_workers (client, 1, 10000));
    zsock_t *sub = testutil_cluster_sub (cluster, client, "", "w-events");
    uint64_t task = testutil_submit (client, testutil_submit_msg ("echo lineage", 0, 1,
                                                                  DROVER_SUBMIT_NOTIFY));
    drover_msg_t *done = testutil_expect_done (client, task, DROVER_TASK_SUCCEEDED, 10000);
    drover_msg_destroy (&done);
    drover_event_t live [8];
    int nlive = 0;
    drover_event_t event;
    while (nlive < 8 && testutil_next_event (sub, &event, 2000)) {
        if (event.task == task)
            live [nlive++] = event;
        if (streq (event.topic, "task.succeeded") && event.task == task)
            break;
    }
    //  queued, assigned, (running: only past the 5 ms a level-7 worker
    //  holds STARTED back), succeeded
    assert_true (nlive >= 3);
    assert_string_equal (live [nlive - 1].topic, "task.succeeded");
    zsock_destroy (&sub);

    testutil_cluster_kill_restart (cluster, NULL);
    zsock_destroy (&client);
    client = testutil_dealer (cluster);
    int found = 0;
    uint64_t since = 0;
    bool more = true;
    while (more) {
        drover_msg_t *replay = drover_msg_new (DROVER_MSG_EVENT_REPLAY);
        replay->since = since;
        replay->limit = 100;
        drover_msg_t *list = testutil_request (client, &replay, 10000);
        assert_non_null (list);
        assert_int_equal (list->id, DROVER_MSG_EVENT_LIST);
        for (uint32_t index = 0; index < list->nevents; index++) {
            drover_event_t *kept = &list->events [index];
            assert_true (kept->seq > since);
            since = kept->seq;
            if (kept->task != task)
                continue;
            assert_true (found < nlive);
            assert_int_equal (kept->seq, live [found].seq);
            assert_string_equal (kept->topic, live [found].topic);
            assert_int_equal (kept->attempt, live [found].attempt);
            assert_string_equal (kept->worker, live [found].worker);
            assert_int_equal (kept->time, live [found].time);
            found++;
        }
        more = list->more;
        drover_msg_destroy (&list);
    }
    assert_int_equal (found, nlive);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

//  durability batch: what was acknowledged before the last commit
//  survives a kill -9 (commits every commit-every msec); durability off
//  keeps nothing, as its name says, and writes no state
static void
test_batch_and_off (void **state)
{
    const char *batch [] = { "--durability", "batch", "--set", "broker/commit-every=50", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (batch);
    zsock_t *client = testutil_dealer (cluster);
    testutil_cluster_add_worker (cluster, 0, "w-batch", 1, NULL);
    assert_true (testutil_wait_workers (client, 1, 10000));
    zsock_t *sub = testutil_cluster_sub (cluster, client, "", "w-batch");
    uint64_t ids [50];
    for (int index = 0; index < 50; index++) {
        //  A label no worker has: they stay queued
        drover_msg_t *submit = testutil_submit_msg ("true", 0, 1, 0);
        assert_int_equal (drover_msg_add_label (submit, "zone=nowhere"), 0);
        ids [index] = testutil_submit (client, submit);
    }
    //  Events are published once committed: the last one's says all are
    drover_event_t event;
    do
        assert_true (testutil_next_event (sub, &event, 5000));
    while (event.task != ids [49] || !streq (event.topic, "task.queued"));
    zsock_destroy (&sub);
    testutil_cluster_kill_restart (cluster, batch);
    zsock_destroy (&client);
    client = testutil_dealer (cluster);
    drover_msg_t *table = s_list (client, 0);
    assert_int_equal (table->counts [DROVER_TASK_QUEUED], 50);
    drover_msg_destroy (&table);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);

    const char *off [] = { "--durability", "off", NULL };
    cluster = testutil_cluster_new (off);
    client = testutil_dealer (cluster);
    uint64_t first = testutil_submit (client, testutil_submit_msg ("true", 0, 1, 0));
    assert_int_equal (first, 1);
    testutil_cluster_kill_restart (cluster, off);
    zsock_destroy (&client);
    client = testutil_dealer (cluster);
    table = s_list (client, 0);
    assert_int_equal (table->counts [DROVER_TASK_QUEUED], 0);
    drover_msg_destroy (&table);
    assert_int_equal (testutil_submit (client, testutil_submit_msg ("true", 0, 1, 0)), 1);
    char state_dir [PATH_MAX];
    snprintf (state_dir, sizeof state_dir, "%s/state", cluster->logdir);
    assert_int_equal (access (state_dir, F_OK), -1);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

//  Send msg (destroyed) on dealer and return the raw frame of the reply
//  with its seq, skipping anything else (an OFFER to a played worker)
static zframe_t *
s_raw_reply (zsock_t *dealer, drover_msg_t **msg_p)
{
    uint32_t seq = (*msg_p)->seq;
    testutil_send (dealer, msg_p);
    zsock_set_rcvtimeo (dealer, 5000);
    zframe_t *frame;
    while ((frame = zframe_recv (dealer))) {
        uint32_t reply_seq;
        drover_msg_peek (zframe_data (frame), zframe_size (frame), &reply_seq);
        if (reply_seq == seq)
            break;
        zframe_destroy (&frame);
    }
    assert_non_null (frame);
    return frame;
}

//  Assert that a raw WELCOME or ACCEPTED has elements elements and
//  decodes with no state id: an ACCEPTED leaves it out (5), a WELCOME to a
//  peer of level 2 or more sends it empty, before the broker's level, and
//  to one of level 7 the ack-timeout after it (8)
static void
s_assert_no_state_id (zframe_t **frame_p, int id, int elements)
{
    zframe_t *frame = *frame_p;
    assert_int_equal (zframe_data (frame) [0], 0x90 + elements);   //  fixarray
    drover_msg_t *msg = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)), 0);
    assert_int_equal (msg->id, id);
    assert_string_equal (msg->state_id, "");
    drover_msg_destroy (&msg);
    zframe_destroy (frame_p);
}

//  durability off keeps nothing, so it names no state (PROTOCOL.md §6.5):
//  WELCOME and ACCEPTED leave the state id out, before and after a
//  restart. (It sent a new one at every start: workers then killed their
//  tasks and clients' waits failed with 412.)
static void
test_off_sends_no_state_id (void **state)
{
    const char *off [] = { "--durability", "off", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (off);
    for (int round = 0; round < 2; round++) {
        zsock_t *worker = testutil_dealer (cluster);
        drover_msg_t *hello = testutil_played_msg ("w-off", 1, DROVER_MSG_WORKER_HELLO, 0, 0);
        hello->seq = 41;
        zframe_t *frame = s_raw_reply (worker, &hello);
        s_assert_no_state_id (&frame, DROVER_MSG_WORKER_WELCOME, 8);
        zsock_t *client = testutil_dealer (cluster);
        drover_msg_t *submit = testutil_submit_msg ("true", 0, 1, 0);
        submit->seq = 42;
        frame = s_raw_reply (client, &submit);
        s_assert_no_state_id (&frame, DROVER_MSG_TASK_ACCEPTED, 5);
        zsock_destroy (&client);
        zsock_destroy (&worker);
        if (round == 0)
            testutil_cluster_kill_restart (cluster, off);
    }
    testutil_cluster_destroy (&cluster);
}

//  Send the SUBMIT of key number index (seq index + 1), its key "cycle-key-N"
static void
s_submit_keyed (zsock_t *client, int index)
{
    drover_msg_t *submit = testutil_submit_msg ("true", 0, 1, 0);
    submit->seq = (uint32_t) index + 1;
    submit->key = zsys_sprintf ("cycle-key-%d", index);
    testutil_send (client, &submit);
}

//  Twenty kill -9 cycles while a client submits flat out with submit keys
//  and re-sends what was not acknowledged: after every restart each
//  acknowledged task is there exactly once (counted at the wire, in TASK
//  ACCEPTED and TASK TABLE), none is lost, none twice, no id given twice
static void
test_kill_cycles_with_keys (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    enum { S_KEYS = 6000, S_WINDOW = 400, S_CYCLES = 20 };
    uint64_t *ids = (uint64_t *) calloc (S_KEYS, sizeof (uint64_t));   //  by key, 0: not yet
    int acknowledged = 0;
    unsigned int seed = 10;
    for (int cycle = 0; cycle <= S_CYCLES; cycle++) {
        zsock_t *client = testutil_dealer (cluster);
        //  Send (again) everything not acknowledged, a window at a time;
        //  the last round goes on until every key is acknowledged
        int kill_after = cycle < S_CYCLES? 1 + (int) (rand_r (&seed) % 300): S_KEYS;
        int heard = 0, next = 0, outstanding = 0;
        while (heard < kill_after && acknowledged < S_KEYS) {
            while (outstanding < S_WINDOW && next < S_KEYS) {
                if (!ids [next]) {
                    s_submit_keyed (client, next);
                    outstanding++;
                }
                next++;
            }
            drover_msg_t *reply = testutil_recv_msg (client, 10000);
            assert_non_null (reply);
            assert_int_equal (reply->id, DROVER_MSG_TASK_ACCEPTED);
            int key = (int) reply->seq - 1;
            assert_true (key >= 0 && key < S_KEYS);
            if (ids [key])
                //  Re-sent and answered again: the same task, never another
                assert_int_equal (reply->task, ids [key]);
            else {
                ids [key] = reply->task;
                acknowledged++;
            }
            outstanding--;
            heard++;
            drover_msg_destroy (&reply);
            if (next == S_KEYS && outstanding == 0)
                next = 0;       //  a round answered: send what is left again
        }
        zsock_destroy (&client);
        if (cycle < S_CYCLES)
            testutil_cluster_kill_restart (cluster, NULL);
    }
    assert_int_equal (acknowledged, S_KEYS);
    //  No id was given to two keys
    uint64_t *sorted = (uint64_t *) malloc (S_KEYS * sizeof (uint64_t));
    memcpy (sorted, ids, S_KEYS * sizeof (uint64_t));
    qsort (sorted, S_KEYS, sizeof (uint64_t), s_compare_ids);
    for (int index = 1; index < S_KEYS; index++)
        assert_true (sorted [index] > sorted [index - 1]);
    //  The broker holds exactly those tasks, each once
    zsock_t *client = testutil_dealer (cluster);
    drover_msg_t *table = s_list (client, S_KEYS + 10);
    assert_int_equal (table->counts [DROVER_TASK_QUEUED], S_KEYS);
    assert_int_equal (table->nrows, S_KEYS);
    for (uint32_t row = 0; row < table->nrows; row++) {
        uint64_t task = table->task_rows [row].task;
        int low = 0, high = S_KEYS - 1;
        while (low < high) {
            int middle = (low + high) / 2;
            if (sorted [middle] < task)
                low = middle + 1;
            else
                high = middle;
        }
        assert_int_equal (sorted [low], task);
    }
    drover_msg_destroy (&table);
    free (sorted);
    free (ids);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

//  A TASK SUBMIT of about 60 KB (its script), to fill a small disk fast
static drover_msg_t *
s_big_submit (void)
{
    static char script [60001];
    memset (script, 'x', sizeof script - 1);
    memcpy (script, "true #", 6);
    return testutil_submit_msg (script, 0, 1, 0);
}

//  Send a SERVICE ADMIN; return the reply (caller destroys)
static drover_msg_t *
s_service_request (zsock_t *client, int action, const char *name, uint32_t count)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_SERVICE_ADMIN);
    msg->action = (uint8_t) action;
    snprintf (msg->service, sizeof msg->service, "%s", name);
    msg->count = count;
    if (action == DROVER_SERVICE_CREATE) {
        msg->procs = 1;
        drover_exec_t *exec = drover_exec_new ();
        const char *argv [] = { "sleep", "1000" };
        assert_int_equal (drover_exec_set_argv (exec, 2, argv), 0);
        size_t size = 0;
        byte *body = drover_exec_encode (exec, &size);
        drover_msg_set_body (msg, body, size);
        free (body);
        drover_exec_destroy (&exec);
    }
    drover_msg_t *reply = testutil_request (client, &msg, 5000);
    assert_non_null (reply);
    return reply;
}

//  Send a SERVICE ADMIN and expect OK
static void
s_service_admin (zsock_t *client, int action, const char *name, uint32_t count)
{
    drover_msg_t *reply = s_service_request (client, action, name, count);
    assert_int_equal (reply->id, DROVER_MSG_OK);
    drover_msg_destroy (&reply);
}

//  Return how many services a SERVICE LIST names (name: one of them must
//  be, if not NULL)
static uint32_t
s_services (zsock_t *client, const char *name, bool *found)
{
    drover_msg_t *list = drover_msg_new (DROVER_MSG_SERVICE_LIST);
    drover_msg_t *table = testutil_request (client, &list, 5000);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_SERVICE_TABLE);
    uint32_t count = table->nservices;
    *found = false;
    for (uint32_t index = 0; name && index < count; index++)
        *found |= streq (table->service_rows [index].name, name);
    drover_msg_destroy (&table);
    return count;
}

//  A full filesystem: a submit that cannot be saved is refused 507 and
//  forgotten, what was acknowledged stays, the broker keeps serving, and
//  once space returns submits are saved again; a restart then finds every
//  acknowledged task and none of the refused ones
static void
test_full_disk_refuses_and_recovers (void **state)
{
    //  A tmpfs of our own, in a mount namespace of our own (the broker is
    //  our child: it sees it, nobody else does)
    if (unshare (CLONE_NEWNS) || mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
        print_message ("cannot make a mount namespace (%s): not root?\n", strerror (errno));
        skip ();
    }
    char dir [] = "/tmp/drover-full-XXXXXX";
    assert_non_null (mkdtemp (dir));
    assert_int_equal (mount ("tmpfs", dir, "tmpfs", 0, "size=2m"), 0);
    char state_dir [64];
    snprintf (state_dir, sizeof state_dir, "%s/state", dir);
    const char *flags [] = { "--state-dir", state_dir, NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    zsock_t *client = testutil_dealer (cluster);
    uint64_t accepted [100];
    int naccepted = 0;
    bool refused = false;
    while (!refused && naccepted < 100) {
        drover_msg_t *submit = s_big_submit ();
        drover_msg_t *reply = testutil_request (client, &submit, 10000);
        assert_non_null (reply);
        if (reply->id == DROVER_MSG_TASK_ACCEPTED)
            accepted [naccepted++] = reply->task;
        else {
            assert_int_equal (reply->id, DROVER_MSG_ERROR);
            assert_int_equal (reply->code, DROVER_CODE_NOT_SAVED);
            assert_non_null (strstr (reply->reason, "not saved"));
            refused = true;
        }
        drover_msg_destroy (&reply);
    }
    assert_true (refused);
    assert_true (naccepted > 0);
    //  A service created meanwhile, the last bytes taken: acknowledged only
    //  if kept (ERROR 507 if not: it must then be gone after the restart;
    //  SQLite may still find room in its log's pages)
    char filler [96];
    snprintf (filler, sizeof filler, "%s/filler", dir);
    int fd = open (filler, O_WRONLY | O_CREAT, 0600);
    assert_true (fd >= 0);
    char block [4096] = { 0 };
    while (write (fd, block, sizeof block) > 0)
        ;
    close (fd);
    drover_msg_t *created = s_service_request (client, DROVER_SERVICE_CREATE, "full", 1);
    bool kept = created->id == DROVER_MSG_OK;
    if (!kept) {
        assert_int_equal (created->code, DROVER_CODE_NOT_SAVED);
        assert_non_null (strstr (created->reason, "not saved"));
    }
    print_message ("a service created on a full disk: %s\n", kept? "kept": "refused 507");
    drover_msg_destroy (&created);
    //  Still serving, and holding exactly what it acknowledged
    drover_msg_t *table = s_list (client, 0);
    assert_int_equal (table->counts [DROVER_TASK_QUEUED], naccepted);
    drover_msg_destroy (&table);
    //  The reply said 507 (or kept it); the operator learns why from the log
    assert_true (testutil_await_line (testutil_cluster_log (cluster, "broker"),
                                      "not saved", 5000));

    //  Space returns: submits are saved and acknowledged again
    assert_int_equal (mount ("tmpfs", dir, "tmpfs", MS_REMOUNT, "size=64m"), 0);
    drover_msg_t *submit = s_big_submit ();
    drover_msg_t *reply = testutil_request (client, &submit, 10000);
    assert_non_null (reply);
    assert_int_equal (reply->id, DROVER_MSG_TASK_ACCEPTED);
    accepted [naccepted++] = reply->task;
    drover_msg_destroy (&reply);

    testutil_cluster_kill_restart (cluster, flags);
    zsock_destroy (&client);
    client = testutil_dealer (cluster);
    table = s_list (client, 200);
    assert_int_equal (table->counts [DROVER_TASK_QUEUED], naccepted);
    for (uint32_t row = 0; row < table->nrows; row++) {
        bool known = false;
        for (int index = 0; index < naccepted; index++)
            known |= table->task_rows [row].task == accepted [index];
        assert_true (known);
    }
    drover_msg_destroy (&table);
    bool found = false;
    assert_int_equal (s_services (client, "full", &found), kept? 1: 0);
    assert_true (found == kept);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
    umount (dir);
    rmdir (dir);
}

//  A state file that is not a drover state: the broker refuses to start,
//  naming the file, and never starts empty over it
static void
test_corrupt_state_refused (void **state)
{
    char dir [] = "/tmp/drover-corrupt-XXXXXX";
    assert_non_null (mkdtemp (dir));
    char file [PATH_MAX];
    snprintf (file, sizeof file, "%s/state.db", dir);
    FILE *garbage = fopen (file, "w");
    assert_non_null (garbage);
    for (int index = 0; index < 4096; index++)
        fputc ((index * 7919) & 0xff, garbage);
    fclose (garbage);
    char log [PATH_MAX];
    snprintf (log, sizeof log, "%s/broker.log", dir);
    char endpoint [64], events [64];
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", testutil_free_port ());
    snprintf (events, sizeof events, "tcp://127.0.0.1:%d", testutil_free_port ());
    const char *argv [] = { DROVER_BIN, "broker", "--endpoint", endpoint, "--events", events,
                            "--state-dir", dir, NULL };
    pid_t pid = testutil_spawn (argv, log);
    int status = testutil_wait_exit (pid, 10000);
    if (status == -1)
        testutil_stop (pid, 100);
    assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) != 0);
    //  A broker that refuses to start answers nothing: its log is what it says
    assert_true (testutil_count_lines_with (log, file) >= 1);
    assert_int_equal (testutil_count_lines_with (log, "broker: ready"), 0);
    //  The file is left as it was
    struct stat info;
    assert_int_equal (stat (file, &info), 0);
    assert_int_equal (info.st_size, 4096);
    testutil_remove_tree (dir);
}

//  Services' definitions and counts survive kill -9: created, scaled and
//  deleted before, listed as they were left after
static void
test_service_definitions_survive_kill (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    zsock_t *client = testutil_dealer (cluster);
    s_service_admin (client, DROVER_SERVICE_CREATE, "web", 2);
    s_service_admin (client, DROVER_SERVICE_SCALE, "web", 3);
    s_service_admin (client, DROVER_SERVICE_CREATE, "db", 1);
    s_service_admin (client, DROVER_SERVICE_CREATE, "cache", 2);
    s_service_admin (client, DROVER_SERVICE_DELETE, "db", 0);

    testutil_cluster_kill_restart (cluster, NULL);
    zsock_destroy (&client);
    client = testutil_dealer (cluster);
    drover_msg_t *list = drover_msg_new (DROVER_MSG_SERVICE_LIST);
    drover_msg_t *table = testutil_request (client, &list, 5000);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_SERVICE_TABLE);
    assert_int_equal (table->nservices, 2);
    assert_string_equal (table->service_rows [0].name, "cache");
    assert_int_equal (table->service_rows [0].replicas, 2);
    assert_string_equal (table->service_rows [1].name, "web");
    assert_int_equal (table->service_rows [1].replicas, 3);
    assert_string_equal (table->service_rows [1].summary, "sleep 1000");
    drover_msg_destroy (&table);
    zsock_destroy (&client);
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_queued_tasks_survive_kill),
        cmocka_unit_test (test_adopted_attempts_fill_the_worker),
        cmocka_unit_test (test_service_definitions_survive_kill),
        cmocka_unit_test (test_busy_workers_adopted),
        cmocka_unit_test (test_kill_cycles_with_keys),
        cmocka_unit_test (test_batch_and_off),
        cmocka_unit_test (test_off_sends_no_state_id),
        cmocka_unit_test (test_events_replayed_across_restart),
        cmocka_unit_test (test_corrupt_state_refused),
        cmocka_unit_test (test_full_disk_refuses_and_recovers),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
