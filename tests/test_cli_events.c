/*  =========================================================================
    test_cli_events - `drover events` through the real binary: it says so
    and exits when nothing publishes at its endpoint, and streams when a
    broker does; with --since it replays what the broker keeps first
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <signal.h>
#include <sys/wait.h>

//  Start `drover events` with args (after the program name), its output in log
static pid_t
s_events_start (const char *const args [], const char *log)
{
    const char *argv [16] = { DROVER_BIN };
    for (int index = 0; args [index] && index < 14; index++)
        argv [index + 1] = args [index];
    unlink (log);
    pid_t pid = testutil_spawn (argv, log);
    assert_true (pid > 0);
    return pid;
}

//  events against an endpoint where nothing publishes: exit 1 within the
//  broker timeout (0.5 s here), with a message naming the endpoint
static void
s_expect_nothing_there (const char *endpoint, const char *log)
{
    const char *args [] = { "--broker-timeout", "0.5", "events", "--events", endpoint, NULL };
    int64_t started = zclock_mono ();
    pid_t pid = s_events_start (args, log);
    int status = testutil_wait_exit (pid, 5000);
    if (status == -1)
        testutil_stop (pid, 100);
    char *output = testutil_slurp (log);
    fprintf (stderr, "drover events --events %s: %s", endpoint, output? output: "(nothing)\n");
    assert_true (status != -1);             //  before the fix: waited forever
    assert_true (WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 1);
    assert_true (zclock_mono () - started < 3000);
    assert_non_null (output);
    assert_non_null (strstr (output, "drover events:"));
    assert_non_null (strstr (output, endpoint));
    free (output);
}

//  A port nobody listens on, and the broker's ROUTER port (a broker is
//  there, but not its event stream), are both said and exit 1
static void
test_events_wrong_endpoint_times_out (void **state)
{
    char log [64];
    snprintf (log, sizeof log, "/tmp/test-cli-events-%d.log", (int) getpid ());
    char nowhere [64];
    snprintf (nowhere, sizeof nowhere, "tcp://127.0.0.1:%d", testutil_free_port ());
    s_expect_nothing_there (nowhere, log);

    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    s_expect_nothing_there (cluster->endpoint, log);
    testutil_cluster_destroy (&cluster);
    unlink (log);
}

//  Against the broker's event endpoint it keeps running past the timeout
//  and prints the events
static void
test_events_streams_from_broker (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    char log [64];
    snprintf (log, sizeof log, "/tmp/test-cli-events-%d.log", (int) getpid ());
    const char *args [] = { "--broker-timeout", "0.3", "events", "--events", cluster->events,
                            "--topic", "task.", NULL };
    pid_t pid = s_events_start (args, log);
    //  A subscription takes effect some time after connecting: submit
    //  until one task.queued line shows, 10 s at most
    zsock_t *dealer = testutil_dealer (cluster);
    bool heard = false;
    int64_t deadline = zclock_mono () + 10000;
    while (!heard && zclock_mono () < deadline) {
        testutil_submit (dealer, testutil_submit_msg ("true", 0, 1, 0));
        heard = testutil_await_line (log, "\"topic\":\"task.queued\"", 200);
    }
    assert_true (heard);
    //  Its time in ISO 8601 UTC, this year's: {"time":"2026-11-24T05:15:00.123Z",
    char *output = testutil_slurp (log);
    char *line = strstr (output, "{\"time\":\"");
    assert_non_null (line);
    int year, month, day, hour, minute, second, msec;
    char zone = 0;
    assert_int_equal (sscanf (line, "{\"time\":\"%4d-%2d-%2dT%2d:%2d:%2d.%3d%c\",", &year, &month,
                              &day, &hour, &minute, &second, &msec, &zone), 8);
    time_t now = time (NULL);
    struct tm utc;
    gmtime_r (&now, &utc);
    assert_int_equal (year, utc.tm_year + 1900);
    assert_int_equal (zone, 'Z');
    free (output);
    //  Well past its 0.3 s timeout, it still runs
    assert_int_equal (waitpid (pid, NULL, WNOHANG), 0);
    kill (pid, SIGINT);
    int status = testutil_wait_exit (pid, 5000);
    assert_true (status != -1 && WIFEXITED (status));
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
    unlink (log);
}


//  Wait until the log shows the task.queued event of task; false on timeout
static bool
s_await_queued (const char *log, uint64_t task, int timeout)
{
    char needle [96];
    snprintf (needle, sizeof needle, "\"topic\":\"task.queued\",\"task\":%llu,",
              (unsigned long long) task);
    return testutil_await_line (log, needle, timeout);
}

//  events --since 0 prints every event the broker keeps, then the live
//  ones: each line a live subscriber printed is there exactly once, in
//  seq order with no gap
static void
test_events_since_replays_then_follows (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    char live_log [64], since_log [64];
    snprintf (live_log, sizeof live_log, "/tmp/test-cli-events-%d-live.log", (int) getpid ());
    snprintf (since_log, sizeof since_log, "/tmp/test-cli-events-%d-since.log", (int) getpid ());
    const char *live_args [] = { "--broker-timeout", "2", "events", "--events", cluster->events,
                                 NULL };
    pid_t live = s_events_start (live_args, live_log);
    zsock_t *dealer = testutil_dealer (cluster);
    uint64_t task = 0;
    int64_t deadline = zclock_mono () + 10000;
    do
        task = testutil_submit (dealer, testutil_submit_msg ("true", 0, 1, 0));
    while (!s_await_queued (live_log, task, 200) && zclock_mono () < deadline);
    assert_true (s_await_queued (live_log, task, 0));

    const char *since_args [] = { "--broker", cluster->endpoint, "--broker-timeout", "2",
                                  "events", "--events", cluster->events, "--since", "0", NULL };
    pid_t since = s_events_start (since_args, since_log);
    //  The broker's store replays what it keeps (durability full, the default)
    assert_false (testutil_await_line (since_log, "keeps no events", 500));
    //  What it replays, then what comes live
    assert_true (s_await_queued (since_log, task, 5000));
    for (int count = 0; count < 3; count++)
        task = testutil_submit (dealer, testutil_submit_msg ("true", 0, 1, 0));
    assert_true (s_await_queued (live_log, task, 5000));
    assert_true (s_await_queued (since_log, task, 5000));
    testutil_stop (live, 2000);
    testutil_stop (since, 2000);
    char *lines = testutil_slurp (live_log);
    assert_non_null (lines);
    int checked = 0;
    for (char *line = strtok (lines, "\n"); line; line = strtok (NULL, "\n"))
        if (*line == '{') {
            if (testutil_count_lines_with (since_log, line) != 1)
                fail_msg ("the --since stream does not have this line once: %s", line);
            checked++;
        }
    assert_true (checked >= 4);
    free (lines);
    //  Its seqs go up by one from the first kept
    lines = testutil_slurp (since_log);
    uint64_t previous = 0;
    for (char *line = strtok (lines, "\n"); line; line = strtok (NULL, "\n")) {
        char *seq = strstr (line, "\"seq\":");
        if (*line != '{' || !seq)
            continue;
        uint64_t value = strtoull (seq + 6, NULL, 10);
        if (previous)
            assert_true (value == previous + 1);
        previous = value;
    }
    free (lines);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
    unlink (live_log);
    unlink (since_log);
}


//  Submit until the log shows a task.queued line, 10 s at most (a
//  subscription takes effect some time after connecting); true if it did
static bool
s_await_stream (zsock_t *dealer, const char *log)
{
    int64_t deadline = zclock_mono () + 10000;
    while (zclock_mono () < deadline) {
        testutil_submit (dealer, testutil_submit_msg ("true", 0, 1, 0));
        if (testutil_await_line (log, "\"topic\":\"task.queued\"", 200))
            return true;
    }
    return false;
}

//  Without --events it finds the stream from the broker it is given
//  (--broker, or DROVER_BROKER): where that broker publishes by default,
//  the port after its ROUTER's. Before: it went to 127.0.0.1:5556, found
//  nothing and exited 1.
static void
test_events_finds_stream_from_broker (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    char log [64];
    snprintf (log, sizeof log, "/tmp/test-cli-events-%d-found.log", (int) getpid ());
    unsetenv ("DROVER_EVENTS");
    const char *flag_args [] = { "--broker-timeout", "1", "events", "--broker", cluster->endpoint,
                                 NULL };
    pid_t pid = s_events_start (flag_args, log);
    bool heard = s_await_stream (dealer, log);
    bool running = waitpid (pid, NULL, WNOHANG) == 0;
    testutil_stop (pid, 2000);
    if (!heard || !running) {
        char *output = testutil_slurp (log);
        fail_msg ("events --broker %s heard nothing; it said:\n%s", cluster->endpoint,
                  output? output: "");
    }
    setenv ("DROVER_BROKER", cluster->endpoint, 1);
    const char *env_args [] = { "--broker-timeout", "1", "events", NULL };
    pid = s_events_start (env_args, log);
    unsetenv ("DROVER_BROKER");
    heard = s_await_stream (dealer, log);
    testutil_stop (pid, 2000);
    assert_true (heard);
    //  A broker that cannot be told (not tcp://HOST:PORT): say so, exit 2
    const char *odd_args [] = { "events", "--broker", "ipc:///tmp/nothing-here", NULL };
    pid = s_events_start (odd_args, log);
    int status = testutil_wait_exit (pid, 5000);
    assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 2);
    assert_true (testutil_await_line (log, "give --events", 0));
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
    unlink (log);
}

//  --since 0 on a fresh broker: the state keeps no event older than its
//  oldest task, so the worker.up before the first task (seq 1) is gone
//  once the broker prunes. 0 asks for all that is kept: no "events
//  1..1 are no longer kept", as it said before. Events are kept and
//  pruned in packs, one a commit, and a commit may hold the worker.up
//  with the first task's events (durability full groups what nobody
//  waits on): so the state keeps one finished task, and a second task,
//  submitted once the first ended, makes the first and its packs go.
static void
test_events_since_0_on_fresh_broker (void **state)
{
    const char *flags [] = { "--set", "store/history-count=1", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "w1", 1, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    assert_true (testutil_wait_workers (dealer, 1, 10000));
    uint64_t earlier = testutil_submit (dealer, testutil_submit_msg ("true", 0, 1,
                                                                     DROVER_SUBMIT_NOTIFY));
    drover_msg_t *done = testutil_wait_done (dealer, earlier, 10000);
    assert_non_null (done);
    drover_msg_destroy (&done);
    uint64_t task = testutil_submit (dealer, testutil_submit_msg ("true", 0, 1, 0));
    //  Until the broker pruned seq 1 (once a second): its replay from 0
    //  starts above it
    uint64_t first = 0;
    int64_t deadline = zclock_mono () + 10000;
    while (first <= 1 && zclock_mono () < deadline) {
        drover_msg_t *replay = drover_msg_new (DROVER_MSG_EVENT_REPLAY);
        replay->seq = 77;
        replay->limit = 1;
        drover_msg_t *list = testutil_request (dealer, &replay, 2000);
        assert_non_null (list);
        assert_int_equal (list->id, DROVER_MSG_EVENT_LIST);
        first = list->nevents? list->events [0].seq: 0;
        drover_msg_destroy (&list);
    }
    assert_true (first > 1);
    char log [64], needle [96];
    snprintf (log, sizeof log, "/tmp/test-cli-events-%d-fresh.log", (int) getpid ());
    const char *args [] = { "--broker", cluster->endpoint, "--broker-timeout", "2", "events",
                            "--events", cluster->events, "--since", "0", NULL };
    pid_t pid = s_events_start (args, log);
    snprintf (needle, sizeof needle, "\"topic\":\"task.succeeded\",\"task\":%llu,",
              (unsigned long long) task);
    bool replayed = testutil_await_line (log, needle, 10000);
    testutil_stop (pid, 2000);
    char *output = testutil_slurp (log);
    if (!replayed || strstr (output, "no longer kept"))
        fail_msg ("events --since 0 said:\n%s", output);
    free (output);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);
    unlink (log);
}


//  ---------------------------------------------------------------------
//  A fake broker that keeps events 1..kept and replays them in pages of
//  at most 10; once the client has paged to the end and subscribed, it
//  keeps 30 and publishes 24, 25, 26 (the first two already replayed),
//  then 29, 30: 27 and 28 are "dropped by the PUB", a gap the client
//  must fill from the store

typedef struct {
    zsock_t *router;            //  EVENT REPLAY comes here
    zsock_t *publisher;         //  XPUB: live events, and we see the subscription
    uint64_t kept;              //  newest seq kept
    bool subscribed;            //  the client's subscription arrived
    bool caught_up;             //  a page with more 0 went out
    bool published;             //  the live events went out
    int replays;                //  EVENT REPLAYs answered
} s_replayer_t;

//  An event with seq, as the fake keeps it
static drover_event_t
s_replayer_event (uint64_t seq)
{
    drover_event_t event = { .seq = seq, .time = 1732262400000ull + seq, .task = seq };
    strcpy (event.topic, "task.queued");
    return event;
}

//  Publish the live events, once both the client caught up and subscribed
static void
s_replayer_publish (s_replayer_t *self)
{
    if (self->published || !self->caught_up || !self->subscribed)
        return;
    self->kept = 30;
    uint64_t live [] = { 24, 25, 26, 29, 30 };
    for (size_t index = 0; index < sizeof live / sizeof live [0]; index++) {
        drover_event_t event = s_replayer_event (live [index]);
        zframe_t *body = drover_event_encode (&event);
        zstr_sendm (self->publisher, event.topic);
        zframe_send (&body, self->publisher, 0);
    }
    self->published = true;
}

//  Answer one EVENT REPLAY with a page
static void
s_replayer_answer (s_replayer_t *self, zframe_t *route, drover_msg_t *replay)
{
    drover_msg_t *list = drover_msg_new (DROVER_MSG_EVENT_LIST);
    list->seq = replay->seq;
    uint64_t end = replay->since + (replay->limit < 10? replay->limit: 10);
    if (end > self->kept)
        end = self->kept;
    list->events = (drover_event_t *) zmalloc (10 * sizeof (drover_event_t));
    for (uint64_t seq = replay->since + 1; seq <= end; seq++)
        list->events [list->nevents++] = s_replayer_event (seq);
    list->last = self->kept;
    list->more = end < self->kept;
    self->caught_up |= !list->more;
    self->replays++;
    zframe_t *frame = drover_msg_encode (list);
    zframe_t *copy = zframe_dup (route);
    zframe_send (&copy, self->router, ZFRAME_MORE);
    zframe_send (&frame, self->router, 0);
    drover_msg_destroy (&list);
}

//  The fake's actor: sends the two ports, then serves until $TERM
static void
s_replayer_actor (zsock_t *pipe, void *args)
{
    s_replayer_t *self = (s_replayer_t *) args;
    self->router = zsock_new (ZMQ_ROUTER);
    self->publisher = zsock_new (ZMQ_XPUB);
    int port = zsock_bind (self->router, "tcp://127.0.0.1:*");
    int events_port = zsock_bind (self->publisher, "tcp://127.0.0.1:*");
    zsock_signal (pipe, 0);
    zsock_send (pipe, "ii", port, events_port);
    zpoller_t *poller = zpoller_new (pipe, self->router, self->publisher, NULL);
    drover_msg_t *msg = drover_msg_new (0);
    while (true) {
        void *which = zpoller_wait (poller, -1);
        if (which == pipe || !which)
            break;
        if (which == self->publisher) {
            zframe_t *note = zframe_recv (self->publisher);
            if (note && zframe_size (note) >= 1 && zframe_data (note) [0] == 1)
                self->subscribed = true;
            zframe_destroy (&note);
        }
        else {
            zmsg_t *raw = zmsg_recv (self->router);
            zframe_t *route = zmsg_pop (raw);
            zframe_t *frame = zmsg_pop (raw);
            if (route && frame
            &&  drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)) == 0
            &&  msg->id == DROVER_MSG_EVENT_REPLAY)
                s_replayer_answer (self, route, msg);
            zframe_destroy (&frame);
            zframe_destroy (&route);
            zmsg_destroy (&raw);
        }
        s_replayer_publish (self);
    }
    drover_msg_destroy (&msg);
    zpoller_destroy (&poller);
    zsock_destroy (&self->publisher);
    zsock_destroy (&self->router);
}

//  --since 0: the kept events page by page, then the live ones, dropping
//  those replayed already and filling the gap 27..28 from the store:
//  seqs 1..30, each once, in order
static void
test_events_since_pages_dedupes_and_fills_gaps (void **state)
{
    s_replayer_t replayer = { .kept = 25 };
    zactor_t *actor = zactor_new (s_replayer_actor, &replayer);
    int port = 0, events_port = 0;
    assert_int_equal (zsock_recv (actor, "ii", &port, &events_port), 0);
    char endpoint [64], events [64], log [64];
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", port);
    snprintf (events, sizeof events, "tcp://127.0.0.1:%d", events_port);
    snprintf (log, sizeof log, "/tmp/test-cli-events-%d-fake.log", (int) getpid ());
    const char *args [] = { "--broker", endpoint, "--broker-timeout", "3", "events",
                            "--events", events, "--since", "0", NULL };
    pid_t pid = s_events_start (args, log);
    bool done = testutil_await_line (log, "\"seq\":30}", 10000);
    testutil_stop (pid, 2000);
    zactor_destroy (&actor);
    assert_true (done);
    char *output = testutil_slurp (log);
    assert_non_null (output);
    uint64_t expected = 1;
    for (char *line = strtok (output, "\n"); line; line = strtok (NULL, "\n")) {
        char *seq = strstr (line, "\"seq\":");
        if (*line != '{' || !seq)
            continue;           //  a warning on stderr
        if (strtoull (seq + 6, NULL, 10) != expected)
            fail_msg ("expected seq %llu, got: %s", (unsigned long long) expected, line);
        expected++;
    }
    assert_int_equal (expected, 31);
    assert_true (replayer.replays >= 4);     //  3 pages, then the gap
    free (output);
    unlink (log);
}

//  Run every test
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_events_wrong_endpoint_times_out),
        cmocka_unit_test (test_events_streams_from_broker),
        cmocka_unit_test (test_events_since_replays_then_follows),
        cmocka_unit_test (test_events_since_pages_dedupes_and_fills_gaps),
        cmocka_unit_test (test_events_finds_stream_from_broker),
        cmocka_unit_test (test_events_since_0_on_fresh_broker),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
