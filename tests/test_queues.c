/*  =========================================================================
    test_queues - named queues end to end (PROTOCOL.md §7.39, §17): a
    serving broker and a standby answer QUEUES with the table their owner
    set, a lone broker with an empty one; `drover submit --queue` and
    `drover worker --queue` (and DROVER_QUEUE) find the queue's brokers by
    asking a standby, then talk to the owner; an unknown queue is an error
    (exit 2); `drover status` lists the queues, and nothing without them

    The serving broker and the standby are this binary run again as a
    child ("serve-broker", "serve-standby"), a drover_broker or a
    drover_standby with a queue table set, as the HA main will set them.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include "drover_broker.h"
#include "drover_brokerflags.h"
#include "drover_standby.h"
#include "drover_queuetable.h"
#include "drover_client.h"
#include <sys/wait.h>
#include <limits.h>
#include <stdlib.h>

//  This test binary, run again as a child (argv [0] made absolute: not
//  /proc/self/exe, which under valgrind is valgrind)
static char s_self [PATH_MAX];

typedef struct {
    char logdir [64];           //  every process logs here
    char broker [64];           //  the serving broker's endpoint (owner of "gpu")
    char standby [64];          //  the standby's endpoint
    char dead [64];             //  an endpoint nothing listens on
    pid_t broker_pid;           //  the serving broker child
    pid_t standby_pid;          //  the standby child
    testutil_cluster_t *lone;   //  a real `drover broker` alone: no named queues
} s_fixture_t;


//  ---------------------------------------------------------------------
//  The children: a broker or a standby answering a table given as
//  arguments: STRATEGY, then NAME OWNER OWNER_ENDPOINT TOKEN ENDPOINTS
//  for each queue ("-" for "")

static const char *
s_arg (const char *text)
{
    return streq (text, "-")? "": text;
}

static drover_queuetable_t *
s_table_of (int argc, char **argv)
{
    drover_queuetable_t *table = drover_queuetable_new (s_arg (argv [0]));
    for (int index = 1; index + 4 < argc; index += 5)
        drover_queuetable_put (table, argv [index], s_arg (argv [index + 1]),
                               s_arg (argv [index + 2]), strtoull (argv [index + 3], NULL, 10),
                               s_arg (argv [index + 4]));
    return table;
}

//  serve-broker ENDPOINT EVENTS STATE_DIR TABLE...: a drover_broker serving,
//  its queues set, until SIGTERM
static int
s_serve_broker (int argc, char **argv)
{
    zsys_set_pipehwm (0);       //  as drover_broker_main does
    drover_config_t *config = drover_config_new ();
    char *flags [] = { "broker", "--endpoint", argv [2], "--events", argv [3],
                       "--state-dir", argv [4], NULL };
    bool verbose = false;
    int status = 0;
    if (drover_brokerflags_parse (config, 7, flags, &verbose, &status))
        return 3;
    drover_broker_t *broker = drover_broker_new (config, false);
    if (!broker)
        return 4;
    drover_queuetable_t *table = s_table_of (argc - 5, argv + 5);
    drover_broker_set_queues (broker, table);
    drover_queuetable_destroy (&table);         //  the broker kept a copy
    if (drover_broker_start (broker, 0))
        return 5;
    drover_broker_run (broker);
    drover_broker_destroy (&broker);
    drover_config_destroy (&config);
    return 0;
}

//  serve-standby ENDPOINT TABLE...: a drover_standby on a ROUTER, its
//  queues set, redirecting to nobody, until SIGTERM
static int
s_serve_standby (int argc, char **argv)
{
    zsock_t *router = zsock_new (ZMQ_ROUTER);
    if (zsock_bind (router, "%s", argv [2]) == -1)
        return 3;
    drover_standby_t *standby = drover_standby_new (router, NULL);
    drover_queuetable_t *table = s_table_of (argc - 3, argv + 3);
    drover_standby_set_queues (standby, table);
    drover_queuetable_destroy (&table);
    zpoller_t *poller = zpoller_new (router, NULL);
    while (zpoller_wait (poller, -1) == router)
        drover_standby_handle (standby);
    zpoller_destroy (&poller);
    drover_standby_destroy (&standby);
    zsock_destroy (&router);
    return 0;
}


//  ---------------------------------------------------------------------
//  The fixture

//  Wait until the process at endpoint answers QUEUES; returns its table
static drover_msg_t *
s_ask_queues (const char *endpoint, int timeout)
{
    zsock_t *dealer = zsock_new (ZMQ_DEALER);
    assert_int_equal (zsock_connect (dealer, "%s", endpoint), 0);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_QUEUES);
    drover_msg_t *reply = testutil_request (dealer, &request, timeout);
    zsock_destroy (&dealer);
    if (reply)
        assert_int_equal (reply->id, DROVER_MSG_QUEUE_TABLE);
    return reply;
}

static int
s_setup (void **state)
{
    s_fixture_t *self = (s_fixture_t *) zmalloc (sizeof (s_fixture_t));
    *state = self;              //  teardown cleans up after a failed setup too
    snprintf (self->logdir, sizeof self->logdir, "/tmp/drover-test-XXXXXX");
    assert_non_null (mkdtemp (self->logdir));
    snprintf (self->broker, sizeof self->broker, "tcp://127.0.0.1:%d", testutil_free_port ());
    snprintf (self->standby, sizeof self->standby, "tcp://127.0.0.1:%d", testutil_free_port ());
    snprintf (self->dead, sizeof self->dead, "tcp://127.0.0.1:%d", testutil_free_port ());
    char events [64], state_dir [128], log [128];
    snprintf (events, sizeof events, "tcp://127.0.0.1:%d", testutil_free_port ());
    snprintf (state_dir, sizeof state_dir, "%s/state", self->logdir);
    //  "gpu" served by b1 at the broker; its list names a dead broker first,
    //  so a peer that did not put the owner first would lose a second there.
    //  "idle": offered by no broker now
    char gpu_endpoints [160];
    snprintf (gpu_endpoints, sizeof gpu_endpoints, "%s,%s", self->dead, self->broker);
    const char *broker_argv [] = { s_self, "serve-broker", self->broker, events,
        state_dir, "spread", "gpu", "b1", self->broker, "5", gpu_endpoints,
        "idle", "-", "-", "0", "-", NULL };
    snprintf (log, sizeof log, "%s/broker.log", self->logdir);
    self->broker_pid = testutil_spawn (broker_argv, log);
    const char *standby_argv [] = { s_self, "serve-standby", self->standby,
        "spread", "gpu", "b1", self->broker, "5", gpu_endpoints,
        "idle", "-", "-", "0", "-", NULL };
    snprintf (log, sizeof log, "%s/standby.log", self->logdir);
    self->standby_pid = testutil_spawn (standby_argv, log);
    assert_true (self->broker_pid > 0 && self->standby_pid > 0);
    //  Both answer once up (the broker once its state is loaded)
    drover_msg_t *reply = s_ask_queues (self->broker, 15000);
    assert_non_null (reply);
    drover_msg_destroy (&reply);
    reply = s_ask_queues (self->standby, 15000);
    assert_non_null (reply);
    drover_msg_destroy (&reply);
    self->lone = testutil_cluster_new (NULL);
    return 0;
}

static int
s_teardown (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    if (self->lone)
        testutil_cluster_destroy (&self->lone);
    if (self->standby_pid > 0)
        testutil_stop (self->standby_pid, 5000);
    if (self->broker_pid > 0)
        testutil_stop (self->broker_pid, 5000);
    testutil_remove_tree (self->logdir);
    free (self);
    return 0;
}

//  Run `drover ARGS...` (NULL-terminated after the options) to its end;
//  returns its exit status, stdout in output and stderr in errors
static int
s_drover (char *output, size_t size, char *errors, size_t errors_size, const char *args [])
{
    const char *argv [24] = { DROVER_BIN };
    int argc = 1;
    for (int index = 0; args [index] && argc < 23; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    int status = testutil_run_cli (argv, output, size, errors, errors_size, 60000);
    assert_true (status != -1 && WIFEXITED (status));
    return WEXITSTATUS (status);
}


//  ---------------------------------------------------------------------
//  Tests

//  The serving broker and the standby answer the table they were set; a
//  broker alone answers an empty one, strategy ""
static void
test_brokers_answer_queues (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    const char *endpoints [] = { self->broker, self->standby };
    for (int index = 0; index < 2; index++) {
        drover_msg_t *reply = s_ask_queues (endpoints [index], 10000);
        assert_non_null (reply);
        assert_string_equal (reply->strategy, "spread");
        assert_int_equal (reply->nqueues, 2);
        assert_string_equal (reply->queue_rows [0].name, "gpu");
        assert_string_equal (reply->queue_rows [0].owner, "b1");
        assert_string_equal (reply->queue_rows [0].owner_endpoint, self->broker);
        assert_true (reply->queue_rows [0].token == 5);
        assert_string_equal (reply->queue_rows [1].name, "idle");
        assert_string_equal (reply->queue_rows [1].owner, "");
        drover_msg_destroy (&reply);
    }
    drover_msg_t *reply = s_ask_queues (self->lone->endpoint, 10000);
    assert_non_null (reply);
    assert_string_equal (reply->strategy, "");
    assert_int_equal (reply->nqueues, 0);
    drover_msg_destroy (&reply);
}

//  The client library: a queue's endpoints, owner first, asked of a
//  standby; a queue not there is 404 naming those that are; one nobody
//  offers 503; a broker without queues 404 too
static void
test_client_queue_endpoints (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    drover_client_t *client = drover_client_new (self->standby);
    char *list = drover_client_queue_endpoints (client, "gpu");
    char *expected = zsys_sprintf ("%s,%s", self->broker, self->dead);
    assert_non_null (list);
    assert_string_equal (list, expected);
    zstr_free (&expected);
    zstr_free (&list);
    assert_null (drover_client_queue_endpoints (client, "nope"));
    assert_int_equal (drover_client_error_code (client), DROVER_CODE_NOT_FOUND);
    assert_non_null (strstr (drover_client_error_text (client), "gpu, idle"));
    assert_null (drover_client_queue_endpoints (client, "idle"));
    assert_int_equal (drover_client_error_code (client), DROVER_CODE_UNAVAILABLE);
    assert_null (drover_client_queue_endpoints (client, "not/a/name"));
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_INVALID);
    drover_client_destroy (&client);

    client = drover_client_new (self->lone->endpoint);
    assert_null (drover_client_queue_endpoints (client, "gpu"));
    assert_int_equal (drover_client_error_code (client), DROVER_CODE_NOT_FOUND);
    assert_non_null (strstr (drover_client_error_text (client), "offer: none"));
    drover_client_destroy (&client);
}

//  submit --queue asks the standby and submits to the owner; DROVER_QUEUE
//  too; an unknown queue is exit 2, one nobody offers exit 1
static void
test_submit_queue (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    char output [1024], errors [1024];
    const char *submit [] = { "submit", "--broker", self->standby, "--broker-timeout", "5",
                              "--queue", "gpu", "--", "true", NULL };
    assert_int_equal (s_drover (output, sizeof output, errors, sizeof errors, submit), 0);
    uint64_t task = strtoull (output, NULL, 10);
    assert_true (task > 0);
    //  The owner has it: it lists the task
    zsock_t *dealer = zsock_new (ZMQ_DEALER);
    assert_int_equal (zsock_connect (dealer, "%s", self->broker), 0);
    drover_msg_t *list = drover_msg_new (DROVER_MSG_TASK_LIST);
    list->limit = 10;
    list->state = 255;
    drover_msg_t *table = testutil_request (dealer, &list, 10000);
    assert_non_null (table);
    assert_int_equal (table->id, DROVER_MSG_TASK_TABLE);
    assert_int_equal (table->nrows, 1);
    assert_true (table->task_rows [0].task == task);
    drover_msg_destroy (&table);
    zsock_destroy (&dealer);

    setenv ("DROVER_QUEUE", "gpu", 1);
    const char *by_env [] = { "submit", "--broker", self->standby, "--", "true", NULL };
    int status = s_drover (output, sizeof output, errors, sizeof errors, by_env);
    setenv ("DROVER_QUEUE", "nope", 1);
    int unknown = s_drover (output, sizeof output, errors, sizeof errors, by_env);
    unsetenv ("DROVER_QUEUE");
    assert_int_equal (status, 0);
    assert_true (strtoull (output, NULL, 10) == 0);     //  the unknown one printed no id
    assert_int_equal (unknown, 2);
    assert_non_null (strstr (errors, "no queue 'nope'"));

    const char *nope [] = { "submit", "--broker", self->standby, "--queue", "nope", "--",
                            "true", NULL };
    assert_int_equal (s_drover (output, sizeof output, errors, sizeof errors, nope), 2);
    assert_non_null (strstr (errors, "no queue 'nope' (the brokers offer: gpu, idle)"));
    const char *bad [] = { "submit", "--broker", self->standby, "--queue", "a b", "--",
                           "true", NULL };
    assert_int_equal (s_drover (output, sizeof output, errors, sizeof errors, bad), 2);
    assert_non_null (strstr (errors, "not a queue name"));
    const char *idle [] = { "submit", "--broker", self->standby, "--queue", "idle", "--",
                            "true", NULL };
    assert_int_equal (s_drover (output, sizeof output, errors, sizeof errors, idle), 1);
    assert_non_null (strstr (errors, "no broker offers queue 'idle'"));
    //  A broker alone knows no queue
    const char *lone [] = { "submit", "--broker", self->lone->endpoint, "--queue", "gpu",
                            "--", "true", NULL };
    assert_int_equal (s_drover (output, sizeof output, errors, sizeof errors, lone), 2);
    assert_non_null (strstr (errors, "no queue 'gpu'"));
}

//  worker --queue asks the standby and registers with the owner; an
//  unknown queue is exit 2
static void
test_worker_queue (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    char log [128];
    snprintf (log, sizeof log, "%s/worker.log", self->logdir);
    const char *worker [] = { DROVER_BIN, "worker", "--broker", self->standby, "--queue", "gpu",
                              "--id", "wq1", "--procs", "1", NULL };
    pid_t pid = testutil_spawn (worker, log);
    assert_true (pid > 0);
    zsock_t *dealer = zsock_new (ZMQ_DEALER);
    assert_int_equal (zsock_connect (dealer, "%s", self->broker), 0);
    bool registered = testutil_wait_workers (dealer, 1, 20000);
    zsock_destroy (&dealer);
    testutil_stop (pid, 5000);
    assert_true (registered);

    //  A queue no broker offers now: the worker waits for one, asking
    //  again, as it waits for a broker that does not answer yet
    snprintf (log, sizeof log, "%s/worker-idle.log", self->logdir);
    const char *idle [] = { DROVER_BIN, "worker", "--broker", self->standby, "--queue", "idle",
                            "--id", "wq3", "--procs", "1", NULL };
    pid = testutil_spawn (idle, log);
    assert_true (pid > 0);
    bool asks_again = testutil_await_line (log, "no broker offers queue 'idle'", 10000)
                   && testutil_await_line (log, "asking again in 2000 ms", 10000);
    int status = testutil_wait_exit (pid, 0);
    testutil_stop (pid, 5000);
    assert_true (asks_again);
    assert_int_equal (status, -1);         //  still running: it did not give up

    char output [1024], errors [1024];
    const char *nope [] = { "worker", "--broker", self->standby, "--queue", "nope",
                            "--id", "wq2", NULL };
    assert_int_equal (s_drover (output, sizeof output, errors, sizeof errors, nope), 2);
    assert_non_null (strstr (errors, "no queue 'nope'"));
}

//  status lists the queues after the brokers (name, owner, endpoint) and
//  --json carries them; without queues, nothing is said of them
static void
test_status_queues (void **state)
{
    s_fixture_t *self = (s_fixture_t *) *state;
    char output [4096], errors [1024];
    const char *status [] = { "status", "--broker", self->broker, NULL };
    assert_int_equal (s_drover (output, sizeof output, errors, sizeof errors, status), 0);
    char *line = zsys_sprintf ("queues:  gpu   b1          %s\n", self->broker);
    if (!strstr (output, line))
        fail_msg ("status said:\n%s", output);
    zstr_free (&line);
    assert_non_null (strstr (output, "         idle  (no owner)  -\n"));
    assert_true (strstr (output, "queues:") < strstr (output, "workers:"));
    //  Listed after the brokers, when there are several
    char *list = zsys_sprintf ("%s,%s", self->broker, self->standby);
    const char *several [] = { "status", "--broker", list, NULL };
    assert_int_equal (s_drover (output, sizeof output, errors, sizeof errors, several), 0);
    zstr_free (&list);
    assert_non_null (strstr (output, "brokers:"));
    assert_true (strstr (output, "brokers:") < strstr (output, "queues:"));
    const char *json [] = { "status", "--broker", self->broker, "--json", NULL };
    assert_int_equal (s_drover (output, sizeof output, errors, sizeof errors, json), 0);
    line = zsys_sprintf ("\"queues\":[{\"name\":\"gpu\",\"owner\":\"b1\",\"owner_endpoint\":"
                         "\"%s\",\"token\":5,\"endpoints\":[\"%s\",\"%s\"]},{\"name\":\"idle\","
                         "\"owner\":\"\",\"owner_endpoint\":\"\",\"token\":0,\"endpoints\":[]}]",
                         self->broker, self->dead, self->broker);
    if (!strstr (output, line))
        fail_msg ("status --json said:\n%s", output);
    zstr_free (&line);

    const char *lone [] = { "status", "--broker", self->lone->endpoint, NULL };
    assert_int_equal (s_drover (output, sizeof output, errors, sizeof errors, lone), 0);
    assert_null (strstr (output, "queues"));
    const char *lone_json [] = { "status", "--broker", self->lone->endpoint, "--json", NULL };
    assert_int_equal (s_drover (output, sizeof output, errors, sizeof errors, lone_json), 0);
    assert_non_null (strstr (output, "\"queues\":[]"));
}

int
main (int argc, char **argv)
{
    if (argc > 2 && streq (argv [1], "serve-broker"))
        return s_serve_broker (argc, argv);
    if (argc > 2 && streq (argv [1], "serve-standby"))
        return s_serve_standby (argc, argv);
    if (!realpath (argv [0], s_self))
        return 1;
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_brokers_answer_queues),
        cmocka_unit_test (test_client_queue_endpoints),
        cmocka_unit_test (test_submit_queue),
        cmocka_unit_test (test_worker_queue),
        cmocka_unit_test (test_status_queues),
    };
    return cmocka_run_group_tests (tests, s_setup, s_teardown);
}
