/*  =========================================================================
    test_curve_broker - the CLI and the worker agent with keys, end to end
    through a real CURVE broker (--key, --keys): every key made by the real
    `drover keygen`, every party a real process.

    A keyed agent registers and runs what a keyed `drover submit --wait`
    sends (and its task sees neither of the agent's key variables);
    `drover wait`, `tasks`, `workers`, `hold`, `resume` and `events` take
    their keys from flags (before or after the command), from DROVER_KEY /
    DROVER_SERVER_KEY, or from the configuration directory; a wrong server
    key, an unknown key or no key at all is a clear refusal well within the
    client timeout; a key without its partner is a usage error.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_keys.h"
#include "testutil_cluster.h"
#include "testutil_signals.h"
#include "drover_keys.h"
#include <sys/stat.h>
#include <sys/wait.h>

//  The keys and the broker of one test
typedef struct {
    char dir [64];              //  the test's directory
    char pairs [96];            //  the key pairs: broker, alice, ops, node, mallory
    char keys [96];             //  the broker's --keys directory
    char broker_key [128];      //  the broker's pair (its public file)
    char alice [128];           //  a client's pair
    char ops [128];             //  an admin's pair
    char node [128];            //  a worker's pair
    char mallory [128];         //  a pair the broker does not know
    testutil_cluster_t *cluster;    //  the broker (and its worker)
} setup_t;

//  Copy the public file of pair into the broker's role directory
static void
s_admit (setup_t *self, const char *pair, const char *role, const char *name)
{
    char *text = testutil_slurp (pair);
    assert_non_null (text);
    char path [256];
    snprintf (path, sizeof path, "%s/%s/%s.key", self->keys, role, name);
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fputs (text, file);
    fclose (file);
    free (text);
}

//  A DEALER to the broker with CURVE key pair (its public file's path),
//  this codec's level said
static zsock_t *
s_dealer (setup_t *self, const char *pair_path)
{
    char *error = NULL;
    zcert_t *pair = drover_keys_load_pair (pair_path, &error);
    zcert_t *server = drover_keys_load_public (self->broker_key, &error);
    assert_non_null (pair);
    assert_non_null (server);
    zsock_t *dealer = zsock_new (ZMQ_DEALER);
    assert_non_null (dealer);
    zsock_set_linger (dealer, 0);
    zcert_apply (pair, dealer);
    zsock_set_curve_serverkey (dealer, zcert_public_txt (server));
    zcert_destroy (&pair);
    zcert_destroy (&server);
    assert_int_equal (zsock_connect (dealer, "%s", self->cluster->endpoint), 0);
    testutil_say_level (dealer, 5000);
    return dealer;
}

//  Keys by drover keygen, a CURVE broker on them, and worker node-1
//  keyed through DROVER_KEY and DROVER_SERVER_KEY
static setup_t *
s_setup (void)
{
    setup_t *self = (setup_t *) zmalloc (sizeof (setup_t));
    snprintf (self->dir, sizeof self->dir, "/tmp/drover-curve-broker-%d", (int) getpid ());
    testutil_remove_tree (self->dir);
    snprintf (self->pairs, sizeof self->pairs, "%s/pairs", self->dir);
    snprintf (self->keys, sizeof self->keys, "%s/keys", self->dir);
    const char *names [] = { "broker", "alice", "ops", "node", "mallory" };
    char *paths [] = { self->broker_key, self->alice, self->ops, self->node, self->mallory };
    for (int index = 0; index < 5; index++) {
        testutil_keygen (self->pairs, names [index]);
        snprintf (paths [index], 128, "%s/%s.key", self->pairs, names [index]);
    }
    const char *roles [] = { "workers", "clients", "admins" };
    assert_int_equal (mkdir (self->keys, 0700), 0);
    for (int index = 0; index < 3; index++) {
        char path [128];
        snprintf (path, sizeof path, "%s/%s", self->keys, roles [index]);
        assert_int_equal (mkdir (path, 0700), 0);
    }
    s_admit (self, self->alice, "clients", "alice");
    s_admit (self, self->ops, "admins", "ops");
    s_admit (self, self->node, "workers", "node");
    const char *flags [] = { "--key", self->broker_key, "--keys", self->keys, NULL };
    self->cluster = testutil_cluster_new (flags);
    setenv ("DROVER_KEY", self->node, 1);
    setenv ("DROVER_SERVER_KEY", self->broker_key, 1);
    testutil_cluster_add_worker (self->cluster, 0, "node-1", 1, NULL);
    unsetenv ("DROVER_KEY");
    unsetenv ("DROVER_SERVER_KEY");
    zsock_t *dealer = s_dealer (self, self->ops);
    if (!testutil_await_worker_state (dealer, "node-1", DROVER_WORKER_UP, 10000)) {
        const char *log = testutil_cluster_log (self->cluster, "node-1");
        fail_msg ("the keyed worker did not register; its log:\n%s", testutil_slurp (log));
    }
    zsock_destroy (&dealer);
    return self;
}

//  Stop the broker and worker, remove the keys
static void
s_teardown (setup_t **self_p)
{
    setup_t *self = *self_p;
    testutil_cluster_destroy (&self->cluster);
    testutil_remove_tree (self->dir);
    free (self);
    *self_p = NULL;
}

//  Run `drover --broker EP --events EV ARGS...` to its end (20 s at most),
//  stdout and stderr into out (a file in the test's directory, read into
//  a fresh string the caller frees); returns its exit status
static int
s_drover (setup_t *self, const char *const args [], char **out_p, int64_t *elapsed_p)
{
    const char *argv [32] = { DROVER_BIN, "--broker", self->cluster->endpoint,
                              "--events", self->cluster->events };
    int argc = 5;
    for (int index = 0; args [index] && argc < 31; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    char log [128];
    snprintf (log, sizeof log, "%s/drover.out", self->dir);
    unlink (log);
    int64_t started = zclock_mono ();
    pid_t pid = testutil_spawn (argv, log);
    assert_true (pid > 0);
    int status = testutil_wait_exit (pid, 20000);
    if (elapsed_p)
        *elapsed_p = zclock_mono () - started;
    if (status == -1)
        testutil_stop (pid, 1000);
    *out_p = testutil_slurp (log);
    assert_non_null (*out_p);
    return status != -1 && WIFEXITED (status)? WEXITSTATUS (status): -1;
}

//  Run drover with args and expect status and, if given, text in what it said
static void
s_expect (setup_t *self, const char *const args [], int status, const char *text)
{
    char *out = NULL;
    int rc = s_drover (self, args, &out, NULL);
    if (rc != status || (text && !strstr (out, text)))
        fail_msg ("drover %s %s: status %d (expected %d), said:\n%s\n(expected '%s')",
                  args [0], args [1]? args [1]: "", rc, status, out, text? text: "");
    free (out);
}

//  A keyed agent registers and runs what a keyed submit sends; the task
//  sees neither of the agent's key variables; wait, tasks and workers
//  take keys from flags after the command and from the environment
static void
test_cli_and_worker_with_keys_run_a_task (void **state)
{
    setup_t *setup = s_setup ();
    const char *submit [] = { "--key", setup->alice, "--server-key", setup->broker_key,
                              "submit", "--wait", "--", "sh", "-c",
                              "echo \"ran [$DROVER_KEY][$DROVER_SERVER_KEY]\"", NULL };
    s_expect (setup, submit, 0, "ran [][]\n");

    const char *submit_id [] = { "--key", setup->alice, "--server-key", setup->broker_key,
                                 "submit", "--", "true", NULL };
    char *out = NULL;
    assert_int_equal (s_drover (setup, submit_id, &out, NULL), 0);
    char id [32];
    snprintf (id, sizeof id, "%llu", strtoull (out, NULL, 10));
    free (out);
    assert_true (strtoull (id, NULL, 10) > 0);

    setenv ("DROVER_KEY", setup->alice, 1);
    setenv ("DROVER_SERVER_KEY", setup->broker_key, 1);
    const char *wait [] = { "wait", id, NULL };
    s_expect (setup, wait, 0, NULL);
    unsetenv ("DROVER_KEY");
    unsetenv ("DROVER_SERVER_KEY");

    const char *tasks [] = { "tasks", "--key", setup->alice, "--server-key", setup->broker_key,
                             "--json", NULL };
    s_expect (setup, tasks, 0, NULL);
    const char *workers [] = { "workers", "--key", setup->ops, "--server-key",
                               setup->broker_key, NULL };
    s_expect (setup, workers, 0, "node-1");
    s_teardown (&setup);
}

//  The keys in the configuration directory are the default: a flag or
//  a variable beats them
static void
test_cli_default_keys_from_config_dir (void **state)
{
    setup_t *setup = s_setup ();
    char config [128], drover_dir [160], path [200];
    snprintf (config, sizeof config, "%s/config", setup->dir);
    snprintf (drover_dir, sizeof drover_dir, "%s/drover", config);
    testutil_keygen (drover_dir, "client");
    snprintf (path, sizeof path, "%s/client.key", drover_dir);
    s_admit (setup, path, "admins", "client");
    char *text = testutil_slurp (setup->broker_key);
    snprintf (path, sizeof path, "%s/server.key", drover_dir);
    FILE *file = fopen (path, "w");
    fputs (text, file);
    fclose (file);
    free (text);

    setenv ("XDG_CONFIG_HOME", config, 1);
    const char *hold [] = { "hold", "node-1", NULL };
    s_expect (setup, hold, 0, NULL);
    const char *resume [] = { "resume", "node-1", NULL };
    s_expect (setup, resume, 0, NULL);
    //  A variable beats the default: mallory is refused
    setenv ("DROVER_KEY", setup->mallory, 1);
    const char *workers [] = { "workers", NULL };
    s_expect (setup, workers, 1, "the broker refused this key");
    unsetenv ("DROVER_KEY");
    //  No server key in the directory: the default key alone is an error
    assert_int_equal (unlink (path), 0);
    s_expect (setup, workers, 2, "needs the broker's public key too");
    unsetenv ("XDG_CONFIG_HOME");
    s_teardown (&setup);
}

//  A wrong server key, an unknown key, no key: a clear refusal, well
//  within the client timeout (10 s here); a key without its partner is a
//  usage error
static void
test_cli_refused_keys_are_clear_errors (void **state)
{
    setup_t *setup = s_setup ();
    const char *cases [][8] = {
        { "--broker-timeout", "10", "--key", setup->alice, "--server-key", setup->mallory,
          "tasks", NULL },
        { "--broker-timeout", "10", "--key", setup->mallory, "--server-key", setup->broker_key,
          "tasks", NULL },
        { "--broker-timeout", "10", "submit", "--", "true", NULL },
    };
    const char *expected [] = { "the broker refused this key", "the broker refused this key",
                                "the broker refused this connection" };
    for (int index = 0; index < 3; index++) {
        char *out = NULL;
        int64_t elapsed = 0;
        int rc = s_drover (setup, cases [index], &out, &elapsed);
        print_message ("case %d: status %d in %lld msec: %s", index, rc, (long long) elapsed,
                       out);
        if (rc != 1 || !strstr (out, expected [index]) || elapsed >= 5000)
            fail_msg ("case %d: status %d in %lld msec, said: %s", index, rc,
                      (long long) elapsed, out);
        free (out);
    }
    const char *key_only [] = { "--key", setup->alice, "tasks", NULL };
    s_expect (setup, key_only, 2, "needs the broker's public key too");
    const char *server_only [] = { "tasks", "--server-key", setup->broker_key, NULL };
    s_expect (setup, server_only, 2, "needs your key pair too");
    s_teardown (&setup);
}

//  drover events with keys hears the broker's events; with a wrong server
//  key it says the broker refused it, at once
static void
test_cli_events_with_keys (void **state)
{
    setup_t *setup = s_setup ();
    char log [128];
    snprintf (log, sizeof log, "%s/events.out", setup->dir);
    const char *argv [] = { DROVER_BIN, "--broker", setup->cluster->endpoint, "--events",
                            setup->cluster->events, "--key", setup->ops, "--server-key",
                            setup->broker_key, "events", "--topic", "worker", NULL };
    pid_t events = testutil_spawn (argv, log);
    assert_true (events > 0);
    //  A subscription takes effect some time after connecting: hold and
    //  resume until the events stream says so
    bool heard = false;
    for (int round = 0; round < 20 && !heard; round++) {
        const char *hold [] = { "--key", setup->ops, "--server-key", setup->broker_key,
                                "hold", "node-1", NULL };
        s_expect (setup, hold, 0, NULL);
        const char *resume [] = { "--key", setup->ops, "--server-key", setup->broker_key,
                                  "resume", "node-1", NULL };
        s_expect (setup, resume, 0, NULL);
        heard = testutil_await_line (log, "node-1", 500);
    }
    testutil_stop (events, 2000);
    if (!heard)
        fail_msg ("drover events heard nothing:\n%s", testutil_slurp (log));

    const char *wrong [] = { "--broker-timeout", "10", "--key", setup->ops, "--server-key",
                             setup->mallory, "events", NULL };
    char *out = NULL;
    int64_t elapsed = 0;
    int rc = s_drover (setup, wrong, &out, &elapsed);
    if (rc != 1 || !strstr (out, "the broker refused this key") || elapsed >= 5000)
        fail_msg ("events with a wrong server key: status %d in %lld msec, said: %s", rc,
                  (long long) elapsed, out);
    free (out);
    s_teardown (&setup);
}

//  Submit `true` with a key pair; returns the task id drover printed
static uint64_t
s_submit_with (setup_t *self, const char *pair)
{
    const char *submit [] = { "--key", pair, "--server-key", self->broker_key, "submit", "--",
                              "true", NULL };
    char *out = NULL;
    assert_int_equal (s_drover (self, submit, &out, NULL), 0);
    uint64_t task = strtoull (out, NULL, 10);
    free (out);
    assert_true (task > 0);
    return task;
}

//  A client's drover events --topic task. shows its own tasks' events
//  (which the broker sends it under own/NAME/), never an admin's
static void
test_cli_events_client_sees_own_tasks (void **state)
{
    setup_t *setup = s_setup ();
    char log [128];
    snprintf (log, sizeof log, "%s/events.out", setup->dir);
    const char *argv [] = { DROVER_BIN, "--broker", setup->cluster->endpoint, "--events",
                            setup->cluster->events, "--key", setup->alice, "--server-key",
                            setup->broker_key, "events", "--topic", "task.", NULL };
    pid_t events = testutil_spawn (argv, log);
    assert_true (events > 0);
    uint64_t others [20];
    bool heard = false;
    int round;
    for (round = 0; round < 20 && !heard; round++) {
        others [round] = s_submit_with (setup, setup->ops);
        char needle [64];
        snprintf (needle, sizeof needle, "\"task\":%" PRIu64 ",",
                  s_submit_with (setup, setup->alice));
        heard = testutil_await_line (log, needle, 500);
    }
    testutil_stop (events, 2000);
    char *text = testutil_slurp (log);
    if (!heard)
        fail_msg ("alice's drover events heard nothing of her tasks:\n%s", text);
    for (int index = 0; index < round; index++) {
        char needle [64];
        snprintf (needle, sizeof needle, "\"task\":%" PRIu64 ",", others [index]);
        if (strstr (text, needle))
            fail_msg ("alice heard the admin's task %" PRIu64 ":\n%s", others [index], text);
    }
    free (text);
    s_teardown (&setup);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_cli_and_worker_with_keys_run_a_task),
        cmocka_unit_test (test_cli_default_keys_from_config_dir),
        cmocka_unit_test (test_cli_refused_keys_are_clear_errors),
        cmocka_unit_test (test_cli_events_with_keys),
        cmocka_unit_test (test_cli_events_client_sees_own_tasks),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
