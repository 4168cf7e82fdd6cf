/*  =========================================================================
    test_drover_store_actor - the store actor alone, through its pipe, on a
    real SQLite file in a fresh directory: the test plays the broker main
    (and assign, schedq, the reconciler behind it) as actors/ACTORS.md
    lists what the store hears and says. Start-up (OPENED, RESTORE ahead of
    RESTORED, ADMIN, SERVICE, STATE, LOADED; FATAL on a damaged state),
    events numbered and PUBLISHed once committed, replies held until then
    (a batch nobody waits on riding on the next commit, 10 msec at most),
    what was kept read back by the next actor on the same file, RECALL,
    EVENT REPLAY, and UNSAVED when the file system refuses a write.

    FENCED needs a PostgreSQL state (only that backend fences): it is
    tested in test_drover_postgres.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_actor.h"
#include "drover_store_actor.h"
#include "drover_store.h"
#include <sqlite3.h>
#include <signal.h>
#include <sys/resource.h>

//  The route a client's reply goes to
#define S_CLIENT        "client-1"

//  One test's state directory and the store on it
typedef struct {
    char top [64];              //  the fresh directory, removed after
    char dir [80];              //  the state directory in it
    zactor_t *store;            //  the actor, or NULL
    char state [64];            //  the state id said at the first start, or ""
} s_test_t;

//  The file size limit before a test lowered it (restored at teardown)
static struct rlimit s_fsize;

static int
s_setup (void **state)
{
    s_test_t *test = (s_test_t *) zmalloc (sizeof (s_test_t));
    snprintf (test->top, sizeof test->top, "/tmp/drover-store-actor-XXXXXX");
    assert_non_null (mkdtemp (test->top));
    snprintf (test->dir, sizeof test->dir, "%s/state", test->top);
    assert_int_equal (getrlimit (RLIMIT_FSIZE, &s_fsize), 0);
    *state = test;
    return 0;
}

static int
s_teardown (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    setrlimit (RLIMIT_FSIZE, &s_fsize);     //  whatever a failed test left
    testutil_actor_destroy (&test->store);
    testutil_remove_tree (test->top);
    free (test);
    return 0;
}

//  Start the store on the test's directory with durability and
//  keep-finished; asserts it says OPENED 1 sqlite first
static void
s_start_with (s_test_t *test, int durability, uint32_t keep_finished)
{
    drover_store_actor_args_t args = {
        .state_dir = test->dir, .durability = durability, .commit_every = 150,
        .keep_finished = keep_finished, .history_count = 1000, .history_age = 3600,
        .history_events = 100000
    };
    test->store = zactor_new (drover_store_actor, &args);
    assert_non_null (test->store);
    zmsg_t *msg = testutil_expect (test->store, "OPENED", 5000);
    testutil_pop_check (msg, "1");
    testutil_pop_check (msg, durability == DROVER_DURABILITY_OFF? "memory": "sqlite");
    zmsg_destroy (&msg);
}

//  Start the store with durability full, keeping 100 final tasks
static void
s_start (s_test_t *test)
{
    s_start_with (test, DROVER_DURABILITY_FULL, 100);
}

//  Expect STATE and LOADED next_task restored, with nothing between; the
//  state id is 32 hex digits, the same at every start on one file
static void
s_expect_loaded (s_test_t *test, uint64_t next_task, uint64_t restored)
{
    zmsg_t *msg = testutil_expect (test->store, "STATE", 5000);
    char *id = zmsg_popstr (msg);
    assert_non_null (id);
    assert_int_equal (strlen (id), 32);
    assert_int_equal (strspn (id, "0123456789abcdef"), 32);
    if (*test->state)
        assert_string_equal (id, test->state);
    snprintf (test->state, sizeof test->state, "%s", id);
    zstr_free (&id);
    zmsg_destroy (&msg);
    msg = testutil_expect (test->store, "LOADED", 5000);
    char text [32];
    snprintf (text, sizeof text, "%" PRIu64, next_task);
    testutil_pop_check (msg, text);
    snprintf (text, sizeof text, "%" PRIu64, restored);
    testutil_pop_check (msg, text);
    zmsg_destroy (&msg);
}

//  Stop the store (zactor_destroy: $TERM, after what was said before it)
//  and start a new one on the same file
static void
s_restart (s_test_t *test)
{
    testutil_actor_destroy (&test->store);
    s_start (test);
}

//  A task.queued change of task, with its submit, owned by owner
static drover_change_t *
s_queued (uint64_t task, const char *owner)
{
    drover_change_t *change = drover_change_new ("task.queued", task);
    change->state = DROVER_TASK_QUEUED;
    change->retries_left = 1;
    change->queued_at = (int64_t) change->time;
    snprintf (change->owner, sizeof change->owner, "%s", owner);
    drover_msg_t *submit = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    submit->task = task;
    submit->procs = 1;
    submit->retries = 1;
    snprintf (submit->principal, sizeof submit->principal, "%s", owner);
    drover_msg_set_body (submit, (byte *) "true", 4);
    change->submit = submit;
    return change;
}

//  A task.succeeded change of task (attempt 1 on w1), with its result
static drover_change_t *
s_succeeded (uint64_t task)
{
    drover_change_t *change = drover_change_new ("task.succeeded", task);
    change->state = DROVER_TASK_SUCCEEDED;
    change->attempt = 1;
    snprintf (change->worker, sizeof change->worker, "w1");
    change->ended_at = (int64_t) change->time;
    drover_msg_t *done = drover_msg_new (DROVER_MSG_TASK_DONE);
    done->task = task;
    done->state = DROVER_TASK_SUCCEEDED;
    done->end = DROVER_END_SUCCEEDED;
    drover_msg_set_output (done, (byte *) "hello", 5, NULL, 0);
    change->done = done;
    return change;
}

//  Say CHANGE change into outbox, as assign does; the outbox owns it
static void
s_say_change (drover_outbox_t *outbox, drover_change_t *change)
{
    drover_outbox_say_change (outbox, DROVER_RECORD_CHANGE, &change);
}

//  Say REPLY to S_CLIENT into outbox with msg encoded (destroyed), as
//  assign and the reconciler do
static void
s_say_reply (drover_outbox_t *outbox, drover_msg_t *msg)
{
    zframe_t *payload = drover_msg_encode (msg);
    assert_non_null (payload);
    drover_msg_destroy (&msg);
    drover_outbox_say_reply (outbox, DROVER_RECORD_REPLY, (const byte *) S_CLIENT,
                             strlen (S_CLIENT), &payload, "");
}

//  A TASK ACCEPTED of task, with seq
static drover_msg_t *
s_accepted (uint64_t task, uint32_t seq)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_ACCEPTED);
    msg->seq = seq;
    msg->task = task;
    return msg;
}

//  Say EVENT topic body (about worker) into outbox, as health does
static void
s_say_event (drover_outbox_t *outbox, const char *topic, const char *worker)
{
    drover_event_t event = { .time = (uint64_t) zclock_time () };
    snprintf (event.topic, sizeof event.topic, "%s", topic);
    snprintf (event.worker, sizeof event.worker, "%s", worker);
    zframe_t *body = drover_event_encode (&event);
    drover_outbox_say (outbox, "ssf", "EVENT", topic, body);
    zframe_destroy (&body);
}

//  Expect PUBLISH topic body owner, the body's event about task with seq
static void
s_expect_publish (zactor_t *store, const char *topic, uint64_t task, uint64_t seq,
                  const char *owner)
{
    zmsg_t *msg = testutil_expect (store, "PUBLISH", 5000);
    testutil_pop_check (msg, topic);
    zframe_t *body = zmsg_pop (msg);
    assert_non_null (body);
    drover_event_t event;
    assert_int_equal (drover_event_decode (&event, zframe_data (body), zframe_size (body)), 0);
    assert_string_equal (event.topic, topic);
    assert_int_equal (event.task, task);
    assert_int_equal (event.seq, seq);
    testutil_pop_check (msg, owner);
    zframe_destroy (&body);
    zmsg_destroy (&msg);
}

//  Expect SEND to S_CLIENT; return its decoded payload (caller destroys)
static drover_msg_t *
s_expect_send (zactor_t *store)
{
    return testutil_expect_send (store, S_CLIENT, "");
}

//  Expect RESTORE of task in state, with its submit, and its result if done
static void
s_expect_restore (zactor_t *store, uint64_t task, int state, bool done)
{
    zmsg_t *msg = testutil_expect (store, "RESTORE", 5000);
    testutil_pop_check (msg, "task.restored");
    char text [32];
    snprintf (text, sizeof text, "%" PRIu64, task);
    testutil_pop_check (msg, text);
    zframe_t *frame;
    for (int skip = 0; skip < 3; skip++) {      //  attempt worker reason
        frame = zmsg_pop (msg);
        zframe_destroy (&frame);
    }
    snprintf (text, sizeof text, "%d", state);
    testutil_pop_check (msg, text);
    //  A plain QUEUED task comes as the record the store made of it
    testutil_pop_check (msg, state == DROVER_TASK_QUEUED? "record": "submit");
    testutil_pop_check (msg, done? "done": "");
    zmsg_destroy (&msg);
}

//  Commit one change of its own (a batch of one) and wait for its PUBLISH
static void
s_keep_one (s_test_t *test, drover_change_t *change, uint64_t seq)
{
    char topic [32];
    snprintf (topic, sizeof topic, "%s", change->topic);
    uint64_t task = change->task;
    char owner [DROVER_ID_MAX + 1];
    snprintf (owner, sizeof owner, "%s", change->owner);
    drover_outbox_t *outbox = drover_outbox_new ();
    s_say_change (outbox, change);
    testutil_say_batch (test->store, &outbox);
    s_expect_publish (test->store, topic, task, seq, owner);
}

//  A new state: OPENED, then STATE and LOADED 1 0, nothing else (no
//  RESTORE, ADMIN, SERVICE); the next start on the file says the same id
static void
test_start_on_new_state (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test);
    s_expect_loaded (test, 1, 0);
    assert_null (testutil_actor_recv (test->store, 0));
    s_restart (test);
    s_expect_loaded (test, 1, 0);           //  the same state id, asserted there
}

//  Events and changes are numbered from 1 in the order said and published
//  once committed, each with its task's owner; numbering goes on after a
//  restart, never reused
static void
test_events_numbered_then_published (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test);
    s_expect_loaded (test, 1, 0);
    drover_outbox_t *outbox = drover_outbox_new ();
    s_say_event (outbox, "worker.up", "w1");
    testutil_say_batch (test->store, &outbox);
    s_expect_publish (test->store, "worker.up", 0, 1, "");
    outbox = drover_outbox_new ();
    s_say_change (outbox, s_queued (1, "alice"));
    s_say_event (outbox, "worker.lost", "w1");
    s_say_change (outbox, s_queued (2, ""));
    testutil_say_batch (test->store, &outbox);
    s_expect_publish (test->store, "task.queued", 1, 2, "alice");
    s_expect_publish (test->store, "worker.lost", 0, 3, "");
    s_expect_publish (test->store, "task.queued", 2, 4, "");
    s_restart (test);
    s_expect_restore (test->store, 1, DROVER_TASK_QUEUED, false);
    s_expect_restore (test->store, 2, DROVER_TASK_QUEUED, false);
    s_expect_loaded (test, 3, 2);
    outbox = drover_outbox_new ();
    s_say_event (outbox, "worker.up", "w2");
    testutil_say_batch (test->store, &outbox);
    s_expect_publish (test->store, "worker.up", 0, 5, "");
}

//  A REPLY is sent on (SEND) only after the commit of the changes said
//  with it: after their PUBLISH; what was committed is read back by the
//  next store on the file, as RESTOREs before STATE and LOADED
static void
test_reply_after_commit_and_kept (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test);
    s_expect_loaded (test, 1, 0);
    drover_outbox_t *outbox = drover_outbox_new ();
    s_say_change (outbox, s_queued (1, "alice"));
    s_say_reply (outbox, s_accepted (1, 41));
    s_say_change (outbox, s_queued (2, "alice"));
    s_say_change (outbox, s_succeeded (2));
    testutil_say_batch (test->store, &outbox);
    s_expect_publish (test->store, "task.queued", 1, 1, "alice");
    s_expect_publish (test->store, "task.queued", 2, 2, "alice");
    s_expect_publish (test->store, "task.succeeded", 2, 3, "");
    drover_msg_t *reply = s_expect_send (test->store);
    assert_int_equal (reply->id, DROVER_MSG_TASK_ACCEPTED);
    assert_int_equal (reply->seq, 41);
    assert_int_equal (reply->task, 1);
    drover_msg_destroy (&reply);

    s_restart (test);
    s_expect_restore (test->store, 1, DROVER_TASK_QUEUED, false);
    s_expect_restore (test->store, 2, DROVER_TASK_SUCCEEDED, true);
    s_expect_loaded (test, 3, 2);
}

//  RECALL waits for the changes said before it to be committed (with
//  durability batch, commit-every later), then says each of its tasks kept
//  and final as a RESTORE (a task not final, or not kept, is left out) and
//  RECALLED ref; RECALLs are answered in order
static void
test_recall_after_commit (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start_with (test, DROVER_DURABILITY_BATCH, 0);
    s_expect_loaded (test, 1, 0);
    drover_outbox_t *outbox = drover_outbox_new ();
    s_say_change (outbox, s_queued (1, ""));
    s_say_change (outbox, s_queued (2, ""));
    testutil_say_batch (test->store, &outbox);
    s_expect_publish (test->store, "task.queued", 1, 1, "");
    s_expect_publish (test->store, "task.queued", 2, 2, "");
    uint64_t ids [] = { 1, 2, 99 };
    zframe_t *frame = zframe_new (ids, sizeof ids);
    uint64_t none [] = { 99 };
    zframe_t *unknown = zframe_new (none, sizeof none);
    outbox = drover_outbox_new ();
    s_say_change (outbox, s_succeeded (1));     //  final only once committed
    drover_outbox_say (outbox, "s8f", "RECALL", (uint64_t) 7, frame);
    drover_outbox_say (outbox, "s8f", "RECALL", (uint64_t) 8, unknown);
    testutil_say_batch (test->store, &outbox);
    zframe_destroy (&frame);
    zframe_destroy (&unknown);
    s_expect_publish (test->store, "task.succeeded", 1, 3, "");
    s_expect_restore (test->store, 1, DROVER_TASK_SUCCEEDED, true);
    zmsg_t *msg = testutil_expect (test->store, "RECALLED", 2000);
    testutil_pop_check (msg, "7");
    zmsg_destroy (&msg);
    msg = testutil_expect (test->store, "RECALLED", 2000);
    testutil_pop_check (msg, "8");
    zmsg_destroy (&msg);

    //  keep-finished 0: the final task stays in the history, not restored
    testutil_actor_destroy (&test->store);
    s_start_with (test, DROVER_DURABILITY_FULL, 0);
    s_expect_restore (test->store, 2, DROVER_TASK_QUEUED, false);
    s_expect_loaded (test, 3, 1);
}

//  Say KEEPADMIN worker admin flags reason since, as schedq does
static void
s_keep_admin (zactor_t *store, const char *worker, int admin, const char *reason)
{
    zsock_send (store, "ss44s8", "KEEPADMIN", worker, admin, 2, reason, (uint64_t) 1234);
}

//  Expect ADMIN worker admin flags reason since, as s_keep_admin said it
static void
s_expect_admin (zactor_t *store, const char *worker, int admin, const char *reason)
{
    zmsg_t *msg = testutil_expect (store, "ADMIN", 5000);
    testutil_pop_check (msg, worker);
    char text [16];
    snprintf (text, sizeof text, "%d", admin);
    testutil_pop_check (msg, text);
    testutil_pop_check (msg, "2");
    testutil_pop_check (msg, reason);
    testutil_pop_check (msg, "1234");
    zmsg_destroy (&msg);
}

//  Say KEEPSERVICE name def (NULL: forget it), as the reconciler does
static void
s_keep_service (zactor_t *store, const char *name, const char *def)
{
    zframe_t *frame = def? zframe_new (def, strlen (def)): zframe_new_empty ();
    zsock_send (store, "ssf", "KEEPSERVICE", name, frame);
    zframe_destroy (&frame);
}

//  Expect SERVICE def
static void
s_expect_service (zactor_t *store, const char *def)
{
    zmsg_t *msg = testutil_expect (store, "SERVICE", 5000);
    zframe_t *frame = zmsg_pop (msg);
    assert_non_null (frame);
    assert_true (zframe_streq (frame, def));
    zframe_destroy (&frame);
    zmsg_destroy (&msg);
}

//  KEEPADMIN and KEEPSERVICE are kept at once: the next store says each
//  setting (ADMIN, by worker id) and definition (SERVICE) before STATE;
//  RUN and an empty definition forget them
static void
test_settings_kept_across_restart (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test);
    s_expect_loaded (test, 1, 0);
    s_keep_admin (test->store, "w2", DROVER_ADMIN_DRAIN, "retire");
    s_keep_admin (test->store, "w1", DROVER_ADMIN_HOLD, "maintenance");
    s_keep_service (test->store, "web", "definition of web");
    s_keep_service (test->store, "db", "definition of db");
    s_restart (test);
    s_expect_admin (test->store, "w1", DROVER_ADMIN_HOLD, "maintenance");
    s_expect_admin (test->store, "w2", DROVER_ADMIN_DRAIN, "retire");
    zmsg_t *first = testutil_expect (test->store, "SERVICE", 5000);
    zmsg_t *second = testutil_expect (test->store, "SERVICE", 5000);
    zframe_t *one = zmsg_first (first), *two = zmsg_first (second);
    assert_true ((zframe_streq (one, "definition of web") && zframe_streq (two, "definition of db"))
              || (zframe_streq (one, "definition of db") && zframe_streq (two, "definition of web")));
    zmsg_destroy (&first);
    zmsg_destroy (&second);
    s_expect_loaded (test, 1, 0);

    s_keep_admin (test->store, "w1", DROVER_ADMIN_RUN, "");
    s_keep_service (test->store, "web", NULL);
    s_restart (test);
    s_expect_admin (test->store, "w2", DROVER_ADMIN_DRAIN, "retire");
    s_expect_service (test->store, "definition of db");
    s_expect_loaded (test, 1, 0);
}

//  At start the store says at most 8192 RESTOREs ahead of assign's
//  RESTORED, then waits for it; once heard, it says the rest
static void
test_restore_waits_for_restored (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    enum { S_TASKS = 9000, S_AHEAD = 8192 };
    char *error = NULL;
    drover_store_t *backend = drover_store_open_sqlite (test->dir, &error);
    assert_non_null (backend);
    drover_change_t **changes = (drover_change_t **) zmalloc (S_TASKS * sizeof (drover_change_t *));
    for (uint64_t index = 0; index < S_TASKS; index++) {
        changes [index] = s_queued (index + 1, "");
        changes [index]->seq = index + 1;
    }
    char text [DROVER_STORE_ERROR_MAX];
    assert_int_equal (drover_store_apply (backend, changes, S_TASKS, text, sizeof text), 0);
    for (size_t index = 0; index < S_TASKS; index++)
        drover_change_destroy (&changes [index]);
    free (changes);
    drover_store_destroy (&backend);

    s_start (test);
    for (uint64_t task = 1; task <= S_AHEAD; task++)
        s_expect_restore (test->store, task, DROVER_TASK_QUEUED, false);
    assert_null (testutil_actor_recv (test->store, 300));     //  waits for assign
    zsock_send (test->store, "s8", "RESTORED", (uint64_t) S_AHEAD);
    for (uint64_t task = S_AHEAD + 1; task <= S_TASKS; task++)
        s_expect_restore (test->store, task, DROVER_TASK_QUEUED, false);
    s_expect_loaded (test, S_TASKS + 1, S_TASKS);
}

//  Lower the process's file size limit to 0: every write to a regular file
//  is refused (EFBIG), as on a full file system, without privileges or a
//  mount; SIGXFSZ, which the kernel sends with it, is ignored
static void
s_refuse_writes (void)
{
    signal (SIGXFSZ, SIG_IGN);
    struct rlimit limit = { .rlim_cur = 0, .rlim_max = s_fsize.rlim_max };
    assert_int_equal (setrlimit (RLIMIT_FSIZE, &limit), 0);
}

//  Give back the file size limit: writes go through again
static void
s_allow_writes (void)
{
    assert_int_equal (setrlimit (RLIMIT_FSIZE, &s_fsize), 0);
}

//  A batch the file system refuses: the tasks submitted in it are dropped
//  (UNSAVED to assign) and their held TASK ACCEPTED becomes ERROR 507; the
//  rest (an event) stays pending, is committed once writes go through
//  again, and only then are the held replies sent. A KEEPSERVICE that
//  could not be kept turns the reconciler's OK after it into ERROR 507.
//  The next store on the file has neither the task nor the service.
static void
test_unsaved_when_write_refused (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test);
    s_expect_loaded (test, 1, 0);
    s_keep_one (test, s_queued (1, ""), 1);

    s_refuse_writes ();
    drover_outbox_t *outbox = drover_outbox_new ();
    s_say_change (outbox, s_queued (2, "alice"));
    s_say_reply (outbox, s_accepted (2, 42));
    s_say_event (outbox, "worker.up", "w1");
    testutil_say_batch (test->store, &outbox);
    zmsg_t *msg = testutil_expect (test->store, "UNSAVED", 5000);
    testutil_pop_check (msg, "2");
    zmsg_destroy (&msg);
    outbox = drover_outbox_new ();
    zframe_t *def = zframe_new ("definition of web", 17);
    drover_outbox_say (outbox, "ssf", "KEEPSERVICE", "web", def);
    zframe_destroy (&def);
    drover_msg_t *ok = drover_msg_new (DROVER_MSG_OK);
    ok->seq = 43;
    ok->code = DROVER_CODE_OK;
    s_say_reply (outbox, ok);
    testutil_say_batch (test->store, &outbox);
    //  Nothing is published or sent while the event cannot be kept
    assert_null (testutil_actor_recv (test->store, 200));
    s_allow_writes ();

    s_expect_publish (test->store, "worker.up", 0, 3, "");     //  2 went with task 2
    drover_msg_t *reply = s_expect_send (test->store);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_NOT_SAVED);
    assert_int_equal (reply->seq, 42);
    drover_msg_destroy (&reply);
    reply = s_expect_send (test->store);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_NOT_SAVED);
    assert_int_equal (reply->seq, 43);
    drover_msg_destroy (&reply);
    s_keep_one (test, s_queued (3, ""), 4);     //  saving again

    s_restart (test);
    s_expect_restore (test->store, 1, DROVER_TASK_QUEUED, false);
    s_expect_restore (test->store, 3, DROVER_TASK_QUEUED, false);
    s_expect_loaded (test, 4, 2);           //  no SERVICE before
}

//  Say KEEPADMIN worker HOLD carrying the OK to the client's request seq
static void
s_keep_admin_answering (zactor_t *store, const char *worker, uint32_t seq)
{
    zframe_t *route = zframe_new (S_CLIENT, strlen (S_CLIENT));
    zsock_send (store, "ss44s8f4s", "KEEPADMIN", worker, DROVER_ADMIN_HOLD, 0, "swap",
                (uint64_t) 1234, route, seq, "HOLD");
    zframe_destroy (&route);
}

//  The OK a KEEPADMIN carries is sent once the setting is kept, and the
//  setting survives a restart; one the file system refuses is answered
//  ERROR 507 saying why, and is not there after a restart
static void
test_admin_answered_once_kept (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test);
    s_expect_loaded (test, 1, 0);
    s_keep_admin_answering (test->store, "w1", 7);
    drover_msg_t *reply = s_expect_send (test->store);
    assert_int_equal (reply->id, DROVER_MSG_OK);
    assert_int_equal (reply->seq, 7);
    assert_string_equal (reply->reason, "HOLD");
    drover_msg_destroy (&reply);

    s_refuse_writes ();
    s_keep_admin_answering (test->store, "w2", 8);
    reply = s_expect_send (test->store);
    s_allow_writes ();
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_NOT_SAVED);
    assert_int_equal (reply->seq, 8);
    assert_non_null (strstr (reply->reason, "not saved: "));
    drover_msg_destroy (&reply);

    s_restart (test);
    zmsg_t *msg = testutil_expect (test->store, "ADMIN", 5000);
    testutil_pop_check (msg, "w1");
    zmsg_destroy (&msg);
    s_expect_loaded (test, 1, 0);           //  and not w2
}

//  A state whose tasks cannot be read (a row out of bounds): OPENED 1,
//  then FATAL saying why, and no LOADED; the actor still stops on $TERM
static void
test_fatal_on_damaged_state (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test);
    s_expect_loaded (test, 1, 0);
    s_keep_one (test, s_queued (1, ""), 1);
    testutil_actor_destroy (&test->store);
    char *file = zsys_sprintf ("%s/state.db", test->dir);
    sqlite3 *db;
    assert_int_equal (sqlite3_open (file, &db), SQLITE_OK);
    assert_int_equal (sqlite3_exec (db, "UPDATE tasks SET state = 99 WHERE id = 1", NULL, NULL,
                                    NULL), SQLITE_OK);
    sqlite3_close (db);
    zstr_free (&file);

    s_start (test);
    zmsg_t *msg = testutil_expect (test->store, "FATAL", 5000);
    char *why = zmsg_popstr (msg);
    assert_non_null (why);
    assert_non_null (strstr (why, "damaged"));
    assert_non_null (strstr (why, test->dir));
    zstr_free (&why);
    zmsg_destroy (&msg);
    assert_null (testutil_actor_recv (test->store, 0));
}

//  A state that cannot be opened (its directory is a file): OPENED 0 and
//  why, nothing else; the actor waits for $TERM
static void
test_opened_0_when_state_cannot_open (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    FILE *file = fopen (test->dir, "w");
    assert_non_null (file);
    fclose (file);
    drover_store_actor_args_t args = {
        .state_dir = test->dir, .durability = DROVER_DURABILITY_FULL, .keep_finished = 100
    };
    test->store = zactor_new (drover_store_actor, &args);
    zmsg_t *msg = testutil_expect (test->store, "OPENED", 5000);
    testutil_pop_check (msg, "0");
    char *why = zmsg_popstr (msg);
    assert_non_null (why);
    assert_non_null (strstr (why, test->dir));
    zstr_free (&why);
    zmsg_destroy (&msg);
    assert_null (testutil_actor_recv (test->store, 100));
}

//  Hand the store an EVENT REPLAY since from S_CLIENT, as the main does
static void
s_replay (zactor_t *store, uint64_t since, uint32_t seq)
{
    drover_msg_t *replay = drover_msg_new (DROVER_MSG_EVENT_REPLAY);
    replay->seq = seq;
    replay->since = since;
    replay->limit = 100;
    testutil_hand (store, S_CLIENT, replay);
}

//  With EVENTS 0 nothing is published but every event is still kept; an
//  EVENT REPLAY is answered EVENT LIST with the committed events after
//  since; EVENTS 1 publishes again
static void
test_events_kept_and_replayed (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test);
    s_expect_loaded (test, 1, 0);
    zsock_send (test->store, "s4", "EVENTS", 0);
    drover_outbox_t *outbox = drover_outbox_new ();
    s_say_event (outbox, "worker.up", "w1");
    s_say_change (outbox, s_queued (1, ""));
    s_say_reply (outbox, s_accepted (1, 1));
    testutil_say_batch (test->store, &outbox);
    drover_msg_t *reply = s_expect_send (test->store);      //  committed, not published
    assert_int_equal (reply->id, DROVER_MSG_TASK_ACCEPTED);
    drover_msg_destroy (&reply);

    s_replay (test->store, 1, 2);
    reply = s_expect_send (test->store);
    assert_int_equal (reply->id, DROVER_MSG_EVENT_LIST);
    assert_int_equal (reply->seq, 2);
    assert_int_equal (reply->last, 2);
    assert_int_equal (reply->nevents, 1);
    assert_int_equal (reply->events [0].seq, 2);
    assert_string_equal (reply->events [0].topic, "task.queued");
    assert_int_equal (reply->events [0].task, 1);
    drover_msg_destroy (&reply);

    zsock_send (test->store, "s4", "EVENTS", 1);
    outbox = drover_outbox_new ();
    s_say_event (outbox, "worker.lost", "w1");
    testutil_say_batch (test->store, &outbox);
    s_expect_publish (test->store, "worker.lost", 0, 3, "");
}

//  With durability off the state is memory: OPENED 1 memory, no state id,
//  events published but none to replay (ERROR 415)
static void
test_durability_off_keeps_nothing (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start_with (test, DROVER_DURABILITY_OFF, 100);
    zmsg_t *msg = testutil_expect (test->store, "STATE", 5000);
    testutil_pop_check (msg, "");
    zmsg_destroy (&msg);
    msg = testutil_expect (test->store, "LOADED", 5000);
    testutil_pop_check (msg, "1");
    testutil_pop_check (msg, "0");
    zmsg_destroy (&msg);
    drover_outbox_t *outbox = drover_outbox_new ();
    s_say_event (outbox, "worker.up", "w1");
    testutil_say_batch (test->store, &outbox);
    s_expect_publish (test->store, "worker.up", 0, 1, "");
    s_replay (test->store, 0, 5);
    drover_msg_t *reply = s_expect_send (test->store);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_UNEXPECTED);
    assert_int_equal (reply->seq, 5);
    drover_msg_destroy (&reply);
    assert_false (zsys_file_exists (test->dir));
}

//  With durability batch a commit waits commit-every msec (150) after the
//  last one (the start counts as one): the publish and the held reply
//  come no sooner
static void
test_durability_batch_waits_commit_every (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    int64_t started = zclock_mono ();
    s_start_with (test, DROVER_DURABILITY_BATCH, 100);
    s_expect_loaded (test, 1, 0);
    drover_outbox_t *outbox = drover_outbox_new ();
    s_say_change (outbox, s_queued (1, ""));
    s_say_reply (outbox, s_accepted (1, 9));
    testutil_say_batch (test->store, &outbox);
    s_expect_publish (test->store, "task.queued", 1, 1, "");
    assert_true (zclock_mono () - started >= 150);
    drover_msg_t *reply = s_expect_send (test->store);
    assert_int_equal (reply->task, 1);
    drover_msg_destroy (&reply);
}

//  With durability full a batch nobody waits on (no reply, no recall)
//  waits up to 10 msec for one that somebody does and is committed with
//  it, before that one's reply is sent; left alone it is committed after
//  those 10 msec; one still waiting when the store stops is committed then
static void
test_durability_full_unwaited_batch_rides (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test);
    s_expect_loaded (test, 1, 0);
    int64_t said = zclock_mono ();
    drover_outbox_t *outbox = drover_outbox_new ();
    s_say_change (outbox, s_queued (1, ""));
    testutil_say_batch (test->store, &outbox);
    s_expect_publish (test->store, "task.queued", 1, 1, "");
    assert_true (zclock_mono () - said >= 10);

    outbox = drover_outbox_new ();
    s_say_change (outbox, s_queued (2, ""));
    testutil_say_batch (test->store, &outbox);
    outbox = drover_outbox_new ();
    s_say_change (outbox, s_queued (3, ""));
    s_say_reply (outbox, s_accepted (3, 7));
    testutil_say_batch (test->store, &outbox);
    s_expect_publish (test->store, "task.queued", 2, 2, "");
    s_expect_publish (test->store, "task.queued", 3, 3, "");
    drover_msg_t *reply = s_expect_send (test->store);
    assert_int_equal (reply->task, 3);
    drover_msg_destroy (&reply);

    outbox = drover_outbox_new ();
    s_say_change (outbox, s_queued (4, ""));
    testutil_say_batch (test->store, &outbox);
    s_restart (test);
    for (uint64_t task = 1; task <= 4; task++)
        s_expect_restore (test->store, task, DROVER_TASK_QUEUED, false);
    s_expect_loaded (test, 5, 4);
}

//  A task.started change of task queued before (attempt 1 on w1): it runs
static drover_change_t *
s_started (uint64_t task)
{
    drover_change_t *change = drover_change_new ("task.started", task);
    change->state = DROVER_TASK_RUNNING;
    change->attempt = 1;
    snprintf (change->worker, sizeof change->worker, "w1");
    change->started_at = (int64_t) change->time;
    return change;
}

//  With durability full, while another task runs, a batch a reply waits
//  on may wait for the next commit (S_GROUP_WAIT after the last), but is
//  still committed before its reply is sent, with nothing more said; a
//  result and its reply are kept as such
static void
test_durability_full_busy_batch_committed (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test);
    s_expect_loaded (test, 1, 0);
    drover_outbox_t *outbox = drover_outbox_new ();
    s_say_change (outbox, s_queued (1, ""));
    s_say_change (outbox, s_queued (2, ""));
    s_say_change (outbox, s_started (1));
    s_say_reply (outbox, s_accepted (2, 5));
    testutil_say_batch (test->store, &outbox);
    s_expect_publish (test->store, "task.queued", 1, 1, "");
    s_expect_publish (test->store, "task.queued", 2, 2, "");
    s_expect_publish (test->store, "task.started", 1, 3, "");
    drover_msg_t *reply = s_expect_send (test->store);
    assert_int_equal (reply->task, 2);
    drover_msg_destroy (&reply);
    //  Task 1 runs: task 2's result, said right after that commit
    for (uint32_t round = 0; round < 3; round++) {
        outbox = drover_outbox_new ();
        s_say_change (outbox, s_started (2));
        s_say_reply (outbox, s_accepted (2, 6 + round));
        testutil_say_batch (test->store, &outbox);
        s_expect_publish (test->store, "task.started", 2, 4 + round, "");
        reply = s_expect_send (test->store);
        assert_int_equal (reply->seq, 6 + round);
        drover_msg_destroy (&reply);
    }
    outbox = drover_outbox_new ();
    s_say_change (outbox, s_succeeded (2));
    s_say_change (outbox, s_succeeded (1));
    s_say_reply (outbox, s_accepted (1, 9));
    testutil_say_batch (test->store, &outbox);
    s_expect_publish (test->store, "task.succeeded", 2, 7, "");
    s_expect_publish (test->store, "task.succeeded", 1, 8, "");
    reply = s_expect_send (test->store);
    assert_int_equal (reply->seq, 9);
    drover_msg_destroy (&reply);
    s_restart (test);
    s_expect_restore (test->store, 1, DROVER_TASK_SUCCEEDED, true);
    s_expect_restore (test->store, 2, DROVER_TASK_SUCCEEDED, true);
    s_expect_loaded (test, 3, 2);
}

//  Read count PUBLISHes and SENDs (in any interleaving the store's turns
//  give) and check that the k-th SEND, whose seq is seqs [k], comes after
//  the k-th PUBLISH: no reply before the commit of the change said before it
static void
s_expect_published_then_sent (zactor_t *store, size_t count, const uint32_t *seqs)
{
    size_t published = 0, sent = 0;
    while (published + sent < 2 * count) {
        zmsg_t *msg = testutil_actor_recv (store, 5000);
        assert_non_null (msg);
        char *word = zmsg_popstr (msg);
        if (streq (word, "PUBLISH"))
            published++;
        else {
            assert_string_equal (word, "SEND");
            assert_true (sent < published);
            zframe_t *route = zmsg_pop (msg);
            zframe_t *payload = zmsg_pop (msg);
            drover_msg_t *reply = drover_msg_new (0);
            assert_int_equal (drover_msg_decode (reply, zframe_data (payload),
                                                 zframe_size (payload)), 0);
            assert_int_equal (reply->seq, seqs [sent]);
            drover_msg_destroy (&reply);
            zframe_destroy (&payload);
            zframe_destroy (&route);
            sent++;
        }
        zstr_free (&word);
        zmsg_destroy (&msg);
    }
}

//  With durability full and two tasks running, the store leaves its pipe
//  unread until the next group commit: batches said meanwhile are read
//  then, each reply sent only after the change said before it is
//  committed; a RECALL said meanwhile is answered; when the last tasks
//  end, their replies are sent
static void
test_durability_full_held_while_tasks_run (void **state)
{
    s_test_t *test = (s_test_t *) *state;
    s_start (test);
    s_expect_loaded (test, 1, 0);
    drover_outbox_t *outbox = drover_outbox_new ();
    for (uint64_t task = 1; task <= 4; task++)
        s_say_change (outbox, s_queued (task, ""));
    s_say_change (outbox, s_started (1));
    s_say_change (outbox, s_started (2));
    s_say_reply (outbox, s_accepted (4, 10));
    testutil_say_batch (test->store, &outbox);
    for (uint64_t task = 1; task <= 4; task++)
        s_expect_publish (test->store, "task.queued", task, task, "");
    s_expect_publish (test->store, "task.started", 1, 5, "");
    s_expect_publish (test->store, "task.started", 2, 6, "");
    drover_msg_t *reply = s_expect_send (test->store);
    assert_int_equal (reply->seq, 10);
    drover_msg_destroy (&reply);
    //  Two run: said right after that commit, these wait for the next
    outbox = drover_outbox_new ();
    s_say_change (outbox, s_started (3));
    s_say_reply (outbox, s_accepted (3, 11));
    testutil_say_batch (test->store, &outbox);
    outbox = drover_outbox_new ();
    s_say_change (outbox, s_succeeded (3));
    s_say_reply (outbox, s_accepted (3, 12));
    testutil_say_batch (test->store, &outbox);
    uint32_t seqs [] = { 11, 12 };
    s_expect_published_then_sent (test->store, 2, seqs);
    //  Said right after a commit too: answered
    uint64_t ids [] = { 3 };
    zframe_t *frame = zframe_new (ids, sizeof ids);
    outbox = drover_outbox_new ();
    drover_outbox_say (outbox, "s8f", "RECALL", (uint64_t) 5, frame);
    testutil_say_batch (test->store, &outbox);
    zframe_destroy (&frame);
    s_expect_restore (test->store, 3, DROVER_TASK_SUCCEEDED, true);
    zmsg_t *msg = testutil_expect (test->store, "RECALLED", 2000);
    testutil_pop_check (msg, "5");
    zmsg_destroy (&msg);
    //  The last two end: committed, and their replies sent
    outbox = drover_outbox_new ();
    s_say_change (outbox, s_succeeded (1));
    s_say_reply (outbox, s_accepted (1, 13));
    testutil_say_batch (test->store, &outbox);
    outbox = drover_outbox_new ();
    s_say_change (outbox, s_succeeded (2));
    s_say_reply (outbox, s_accepted (2, 14));
    testutil_say_batch (test->store, &outbox);
    uint32_t last [] = { 13, 14 };
    s_expect_published_then_sent (test->store, 2, last);
    s_restart (test);
    for (uint64_t task = 1; task <= 3; task++)
        s_expect_restore (test->store, task, DROVER_TASK_SUCCEEDED, true);
    s_expect_restore (test->store, 4, DROVER_TASK_QUEUED, false);
    s_expect_loaded (test, 5, 4);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_start_on_new_state, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_events_numbered_then_published, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_reply_after_commit_and_kept, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_recall_after_commit, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_settings_kept_across_restart, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_restore_waits_for_restored, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_unsaved_when_write_refused, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_admin_answered_once_kept, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_fatal_on_damaged_state, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_opened_0_when_state_cannot_open, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_events_kept_and_replayed, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_durability_off_keeps_nothing, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_durability_batch_waits_commit_every, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_durability_full_unwaited_batch_rides, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_durability_full_busy_batch_committed, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_durability_full_held_while_tasks_run, s_setup,
                                         s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
