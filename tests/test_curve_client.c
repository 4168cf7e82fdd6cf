/*  =========================================================================
    test_curve_client - the client library's keys, and the worker agent's
    (`drover worker --key --server-key`), against a small CURVE broker of
    the test's own: a czmq ROUTER speaking CURVE with the key pair `drover
    keygen` wrote, its peers authenticated by zauth (ZAP) against a
    directory of public keys. It answers every request OK, tells the test
    each one's name and User-Id (the peer's public key) on its pipe, and
    notes the last User-Id.

    A client with an accepted key is served; one the broker refuses (a key
    it does not hold, a wrong server key, no key at a CURVE broker, a key at
    a plain one) fails its request at once with "the broker refused ...",
    well before its timeout; a key file it cannot use is refused up front.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_keys.h"
#include "testutil_wire.h"
#include "drover_client.h"
#include <sys/stat.h>
#include <sys/wait.h>

//  The test's broker
typedef struct {
    zcert_t *cert;              //  its key pair, or NULL for a plain ROUTER
    char endpoint [64];         //  where it listens, set once started (kept on a restart)
    char user_id [64];          //  User-Id of the last request, "" if none
    int requests;               //  requests answered
} fake_t;

//  The fake broker's actor: answer every request OK with its seq
static void
s_fake_actor (zsock_t *pipe, void *args)
{
    fake_t *fake = (fake_t *) args;
    zsock_t *router = zsock_new (ZMQ_ROUTER);
    assert (router);
    if (fake->cert) {
        zcert_apply (fake->cert, router);
        zsock_set_curve_server (router, 1);
        zsock_set_zap_domain (router, "drover");
    }
    //  Its handshakes refused, told on the pipe as REFUSED
    zsock_t *monitor = zsock_new (ZMQ_PAIR);
    char monitor_at [64];
    snprintf (monitor_at, sizeof monitor_at, "inproc://fake-monitor-%p", (void *) router);
    assert (zmq_socket_monitor (zsock_resolve (router), monitor_at,
                                ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) == 0);
    assert (zsock_connect (monitor, "%s", monitor_at) == 0);
    if (*fake->endpoint) {          //  started again where it was, once the
        int64_t deadline = zclock_mono () + 5000;   //  last one's listener is closed
        while (zsock_bind (router, "%s", fake->endpoint) == -1) {
            assert (errno == EADDRINUSE && zclock_mono () < deadline);
            zclock_sleep (10);
        }
    }
    else {
        int port = zsock_bind (router, "tcp://127.0.0.1:*");
        assert (port > 0);
        snprintf (fake->endpoint, sizeof fake->endpoint, "tcp://127.0.0.1:%d", port);
    }
    zsock_signal (pipe, 0);
    zpoller_t *poller = zpoller_new (pipe, router, monitor, NULL);
    while (true) {
        void *which = zpoller_wait (poller, -1);
        if (which == monitor) {
            zmsg_t *event = zmsg_recv (monitor);
            zmsg_destroy (&event);
            zstr_send (pipe, "REFUSED");
            continue;
        }
        if (which == pipe) {
            char *command = zstr_recv (pipe);
            bool term = !command || streq (command, "$TERM");
            zstr_free (&command);
            if (term)
                break;
            continue;
        }
        if (which != router)
            break;                      //  interrupted
        zframe_t *route = zframe_recv (router);
        zframe_t *frame = route? zframe_recv (router): NULL;
        drover_msg_t *msg = drover_msg_new (0);
        if (frame && drover_msg_decode (msg, zframe_data (frame), zframe_size (frame)) == 0) {
            const char *user_id = zframe_meta (frame, "User-Id");
            snprintf (fake->user_id, sizeof fake->user_id, "%s", user_id? user_id: "");
            bool hello = msg->id == DROVER_MSG_CLIENT_HELLO;    //  the client's level, not
            if (!hello) {                                       //  a request of the test's
                fake->requests++;
                zstr_sendx (pipe, "REQUEST", drover_msg_name (msg->id), fake->user_id, NULL);
            }
            drover_msg_t *reply = drover_msg_new (hello? DROVER_MSG_CLIENT_WELCOME: DROVER_MSG_OK);
            reply->seq = msg->seq;
            zframe_t *out = drover_msg_encode (reply);
            zframe_send (&route, router, ZFRAME_MORE);
            zframe_send (&out, router, 0);
            drover_msg_destroy (&reply);
        }
        drover_msg_destroy (&msg);
        zframe_destroy (&route);
        zframe_destroy (&frame);
    }
    zpoller_destroy (&poller);
    zmq_socket_monitor (zsock_resolve (router), NULL, 0);
    zsock_destroy (&monitor);
    zsock_destroy (&router);
}

//  What every test uses: keys by `drover keygen`, zauth, the fake broker
typedef struct {
    char dir [64];              //  the test's directory
    char server_key [128];      //  the broker's public key file
    char alice [128];           //  an accepted client's key pair (NAME.key)
    char bob [128];             //  a key the broker does not hold
    zcert_t *alice_cert;        //  alice's public key, to compare with User-Id
    zactor_t *auth;             //  zauth, accepting the keys in dir/allowed
    fake_t fake;                //  the broker's state
    zactor_t *broker;           //  the fake broker
} setup_t;

//  Copy a file
static void
s_copy (const char *from, const char *to)
{
    char *text = testutil_slurp (from);
    assert_non_null (text);
    FILE *file = fopen (to, "w");
    assert_non_null (file);
    fputs (text, file);
    fclose (file);
    free (text);
}

//  Make keys, start zauth and a broker (CURVE if curve)
static setup_t *
s_setup (bool curve)
{
    setup_t *self = (setup_t *) zmalloc (sizeof (setup_t));
    snprintf (self->dir, sizeof self->dir, "/tmp/drover-curve-client-%d", (int) getpid ());
    testutil_remove_tree (self->dir);
    testutil_keygen (self->dir, "server");
    testutil_keygen (self->dir, "alice");
    testutil_keygen (self->dir, "bob");
    snprintf (self->server_key, sizeof self->server_key, "%s/server.key", self->dir);
    snprintf (self->alice, sizeof self->alice, "%s/alice.key", self->dir);
    snprintf (self->bob, sizeof self->bob, "%s/bob.key", self->dir);
    char allowed [96], path [160];
    snprintf (allowed, sizeof allowed, "%s/allowed", self->dir);
    assert_int_equal (mkdir (allowed, 0700), 0);
    snprintf (path, sizeof path, "%s/alice.key", allowed);
    s_copy (self->alice, path);
    self->alice_cert = zcert_load (self->alice);
    assert_non_null (self->alice_cert);

    self->auth = zactor_new (zauth, NULL);
    assert_non_null (self->auth);
    assert_int_equal (zstr_sendx (self->auth, "CURVE", allowed, NULL), 0);
    assert_int_equal (zsock_wait (self->auth), 0);
    if (curve) {
        char secret [160];
        snprintf (secret, sizeof secret, "%s/server.key", self->dir);
        self->fake.cert = zcert_load (secret);      //  reads server.key_secret too
        assert_non_null (self->fake.cert);
    }
    self->broker = zactor_new (s_fake_actor, &self->fake);
    assert_non_null (self->broker);
    return self;
}

//  Stop everything; the fake's counters are the test's from here on
static void
s_teardown (setup_t **self_p)
{
    setup_t *self = *self_p;
    zactor_destroy (&self->broker);
    zactor_destroy (&self->auth);
    zcert_destroy (&self->fake.cert);
    zcert_destroy (&self->alice_cert);
    testutil_remove_tree (self->dir);
    free (self);
    *self_p = NULL;
}

//  A client on the given keys, with a timeout of 5 s
static drover_client_t *
s_client (setup_t *setup, const char *key, const char *server_key)
{
    drover_client_t *client = drover_client_new (setup->fake.endpoint);
    assert_non_null (client);
    drover_client_set_timeout (client, 5000);
    if (key)
        assert_int_equal (drover_client_set_keys (client, key, server_key), 0);
    return client;
}

//  Cancel task 1 and expect the broker's refusal, at once: long before
//  the 5 s timeout. Checks the text holds expected.
static void
s_expect_refused (drover_client_t *client, const char *expected)
{
    int64_t started = zclock_mono ();
    assert_int_equal (drover_client_cancel (client, 1), -1);
    int64_t elapsed = zclock_mono () - started;
    const char *text = drover_client_error_text (client);
    if (drover_client_error_code (client) != DROVER_CLIENT_ERR_REFUSED)
        fail_msg ("expected a refusal, got code %d: %s", drover_client_error_code (client), text);
    if (!strstr (text, expected))
        fail_msg ("expected '%s' in '%s'", expected, text);
    print_message ("refused in %lld msec: %s\n", (long long) elapsed, text);
    assert_true (elapsed < 2500);
}

//  An accepted key is served, and the broker knows it as that key
static void
test_client_with_accepted_key_is_served (void **state)
{
    setup_t *setup = s_setup (true);
    drover_client_t *client = s_client (setup, setup->alice, setup->server_key);
    if (drover_client_cancel (client, 1))
        fail_msg ("cancel failed: %s", drover_client_error_text (client));
    //  The secret file's path works as well as the public one's
    drover_client_t *other = drover_client_new (setup->fake.endpoint);
    char secret [160];
    snprintf (secret, sizeof secret, "%s_secret", setup->alice);
    assert_int_equal (drover_client_set_keys (other, secret, setup->server_key), 0);
    assert_int_equal (drover_client_cancel (other, 2), 0);
    drover_client_destroy (&other);
    drover_client_destroy (&client);
    zactor_destroy (&setup->broker);    //  the fake's state is ours from here
    assert_int_equal (setup->fake.requests, 2);
    assert_string_equal (setup->fake.user_id, zcert_public_txt (setup->alice_cert));
    s_teardown (&setup);
}

//  A key the broker does not hold: refused at once, and nothing reaches it
static void
test_client_unknown_key_refused_at_once (void **state)
{
    setup_t *setup = s_setup (true);
    drover_client_t *client = s_client (setup, setup->bob, setup->server_key);
    s_expect_refused (client, "the broker refused this key");
    //  ZeroMQ goes on trying: the next request is refused too
    s_expect_refused (client, "the broker refused this key");
    drover_client_destroy (&client);
    zactor_destroy (&setup->broker);
    assert_int_equal (setup->fake.requests, 0);
    s_teardown (&setup);
}

//  The wrong server key (another key's public file): refused at once
static void
test_client_wrong_server_key_refused_at_once (void **state)
{
    setup_t *setup = s_setup (true);
    drover_client_t *client = s_client (setup, setup->alice, setup->bob);
    s_expect_refused (client, "the broker refused this key");
    drover_client_destroy (&client);
    zactor_destroy (&setup->broker);
    assert_int_equal (setup->fake.requests, 0);
    s_teardown (&setup);
}

//  No key at a CURVE broker, and a key at a plain one: refused at once,
//  saying which side lacks CURVE
static void
test_client_curve_on_one_side_refused_at_once (void **state)
{
    setup_t *setup = s_setup (true);
    drover_client_t *client = s_client (setup, NULL, NULL);
    s_expect_refused (client, "speaks CURVE only");
    drover_client_destroy (&client);
    s_teardown (&setup);

    setup = s_setup (false);
    client = s_client (setup, setup->alice, setup->server_key);
    s_expect_refused (client, "does not speak CURVE");
    drover_client_destroy (&client);
    //  Without keys, the plain broker serves it as before
    client = s_client (setup, NULL, NULL);
    assert_int_equal (drover_client_cancel (client, 1), 0);
    drover_client_destroy (&client);
    s_teardown (&setup);
}

//  A key revoked while the client is idle: the broker restarts without
//  it, the client's connection comes back and is refused before its next
//  request, whose send takes the news in. That request is refused at once,
//  not after the timeout.
static void
test_client_refused_while_idle_told_at_next_request (void **state)
{
    setup_t *setup = s_setup (true);
    drover_client_t *client = s_client (setup, setup->alice, setup->server_key);
    assert_int_equal (drover_client_cancel (client, 1), 0);
    char revoked [160];
    snprintf (revoked, sizeof revoked, "%s/allowed/alice.key", setup->dir);
    assert_int_equal (unlink (revoked), 0);
    zactor_destroy (&setup->broker);
    setup->broker = zactor_new (s_fake_actor, &setup->fake);
    assert_non_null (setup->broker);
    //  The broker has refused the client's reconnection
    zsock_set_rcvtimeo (setup->broker, 10000);
    char *refused = zstr_recv (setup->broker);
    testutil_assert_and_free (refused, "REFUSED");
    s_expect_refused (client, "the broker refused this key");
    drover_client_destroy (&client);
    s_teardown (&setup);
}

//  A key file that cannot be used is refused by set_keys, saying why
static void
test_client_set_keys_refuses_unusable_files (void **state)
{
    setup_t *setup = s_setup (true);
    drover_client_t *client = drover_client_new (setup->fake.endpoint);
    char secret [160];
    snprintf (secret, sizeof secret, "%s_secret", setup->alice);
    assert_int_equal (chmod (secret, 0640), 0);
    assert_int_equal (drover_client_set_keys (client, setup->alice, setup->server_key), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_KEY);
    assert_non_null (strstr (drover_client_error_text (client), "chmod 600"));
    assert_int_equal (chmod (secret, 0600), 0);
    char missing [160];
    snprintf (missing, sizeof missing, "%s/nobody.key", setup->dir);
    assert_int_equal (drover_client_set_keys (client, missing, setup->server_key), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_KEY);
    assert_non_null (strstr (drover_client_error_text (client), "nobody.key_secret"));
    assert_int_equal (drover_client_set_keys (client, setup->alice, missing), -1);
    assert_int_equal (drover_client_error_code (client), DROVER_CLIENT_ERR_KEY);
    //  Nothing changed: then good keys work
    assert_int_equal (drover_client_set_keys (client, setup->alice, setup->server_key), 0);
    assert_int_equal (drover_client_cancel (client, 1), 0);
    drover_client_destroy (&client);
    s_teardown (&setup);
}

//  ---------------------------------------------------------------------
//  The worker agent

//  Wait up to timeout msec for the fake broker to say it got a request
//  named name; returns its User-Id (static buffer), NULL on timeout
static const char *
s_await_request (setup_t *setup, const char *name, int timeout)
{
    static char user_id [64];
    int64_t deadline = zclock_mono () + timeout;
    while (zclock_mono () < deadline) {
        zmsg_t *msg = testutil_recv (zactor_sock (setup->broker),
                                     (int) (deadline - zclock_mono ()));
        if (!msg)
            break;
        char *word = zmsg_popstr (msg);
        char *got = zmsg_popstr (msg);
        char *user = zmsg_popstr (msg);
        bool match = word && got && streq (got, name);
        if (match)
            snprintf (user_id, sizeof user_id, "%s", user? user: "");
        zstr_free (&word);
        zstr_free (&got);
        zstr_free (&user);
        zmsg_destroy (&msg);
        if (match)
            return user_id;
    }
    return NULL;
}

//  Start `drover worker` on the fake broker with extra flags (NULL-ended),
//  logging into log
static pid_t
s_worker (setup_t *setup, const char *log, const char *const extra [])
{
    const char *argv [32] = { DROVER_BIN, "worker", "--broker", setup->fake.endpoint,
                              "--id", "w-curve", "--heartbeat", "200" };
    int argc = 8;
    for (int index = 0; extra [index] && argc < 31; index++)
        argv [argc++] = extra [index];
    argv [argc] = NULL;
    unlink (log);
    pid_t pid = testutil_spawn (argv, log);
    assert_true (pid > 0);
    return pid;
}

//  A worker with an accepted key registers (its HELLO reaches the broker
//  as that key); the same through DROVER_KEY and DROVER_SERVER_KEY
static void
test_worker_with_accepted_key_says_hello (void **state)
{
    setup_t *setup = s_setup (true);
    char log [128];
    snprintf (log, sizeof log, "%s/worker.log", setup->dir);
    const char *flags [] = { "--key", setup->alice, "--server-key", setup->server_key, NULL };
    pid_t worker = s_worker (setup, log, flags);
    const char *user_id = s_await_request (setup, "WORKER HELLO", 10000);
    if (!user_id)
        fail_msg ("no HELLO from the worker; its log:\n%s", testutil_slurp (log));
    assert_string_equal (user_id, zcert_public_txt (setup->alice_cert));
    testutil_stop (worker, 5000);

    //  From the environment; a flag beats it (the server key given there
    //  does not exist)
    setenv ("DROVER_KEY", setup->alice, 1);
    setenv ("DROVER_SERVER_KEY", "/nonexistent/server.key", 1);
    const char *server_flag [] = { "--server-key", setup->server_key, NULL };
    worker = s_worker (setup, log, server_flag);
    unsetenv ("DROVER_KEY");
    unsetenv ("DROVER_SERVER_KEY");
    user_id = s_await_request (setup, "WORKER HELLO", 10000);
    if (!user_id)
        fail_msg ("no HELLO from the worker keyed by the environment and a flag; its log:\n%s",
                  testutil_slurp (log));
    assert_string_equal (user_id, zcert_public_txt (setup->alice_cert));
    testutil_stop (worker, 5000);
    s_teardown (&setup);
}

//  A worker whose key the broker refuses logs why, keeps running and
//  trying, and registers once the broker's operator adds its key
static void
test_worker_refused_logs_and_retries (void **state)
{
    setup_t *setup = s_setup (true);
    char log [128];
    snprintf (log, sizeof log, "%s/worker.log", setup->dir);
    const char *flags [] = { "--key", setup->bob, "--server-key", setup->server_key, NULL };
    pid_t worker = s_worker (setup, log, flags);
    //  What the worker tells its operator is the behaviour here: its log
    if (!testutil_await_line (log, "the broker refused this key (authentication", 10000))
        fail_msg ("no refusal in the worker's log:\n%s", testutil_slurp (log));
    assert_int_equal (waitpid (worker, NULL, WNOHANG), 0);      //  still running
    char path [160];
    snprintf (path, sizeof path, "%s/allowed/bob.key", setup->dir);
    s_copy (setup->bob, path);
    const char *user_id = s_await_request (setup, "WORKER HELLO", 15000);
    if (!user_id)
        fail_msg ("the worker did not try again; its log:\n%s", testutil_slurp (log));
    zcert_t *bob = zcert_load (setup->bob);
    assert_string_equal (user_id, zcert_public_txt (bob));
    zcert_destroy (&bob);
    assert_true (testutil_await_line (log, "accepted this key", 5000));
    assert_int_equal (testutil_count_lines_with (log, "the broker refused this key"), 1);
    testutil_stop (worker, 5000);
    s_teardown (&setup);
}

//  Run `drover worker` with flags to its end within 10 s; its exit status
static int
s_worker_status (setup_t *setup, const char *const flags [])
{
    char log [128];
    snprintf (log, sizeof log, "%s/worker.log", setup->dir);
    pid_t worker = s_worker (setup, log, flags);
    int status = testutil_wait_exit (worker, 10000);
    if (status == -1) {
        testutil_stop (worker, 1000);
        fail_msg ("the worker did not stop; its log:\n%s", testutil_slurp (log));
    }
    return WIFEXITED (status)? WEXITSTATUS (status): -1;
}

//  A key without a server key, the reverse, a secret open to others: the
//  agent stops at once (status 2), saying why
static void
test_worker_key_flags_refused (void **state)
{
    setup_t *setup = s_setup (true);
    char log [128];
    snprintf (log, sizeof log, "%s/worker.log", setup->dir);
    const char *key_only [] = { "--key", setup->alice, NULL };
    assert_int_equal (s_worker_status (setup, key_only), 2);
    assert_true (testutil_count_lines_with (log, "needs the broker's public key") == 1);
    const char *server_only [] = { "--server-key", setup->server_key, NULL };
    assert_int_equal (s_worker_status (setup, server_only), 2);
    assert_true (testutil_count_lines_with (log, "needs this worker's key pair") == 1);
    char secret [160];
    snprintf (secret, sizeof secret, "%s_secret", setup->alice);
    assert_int_equal (chmod (secret, 0644), 0);
    const char *both [] = { "--key", setup->alice, "--server-key", setup->server_key, NULL };
    assert_int_equal (s_worker_status (setup, both), 2);
    assert_true (testutil_count_lines_with (log, "chmod 600") == 1);
    assert_int_equal (chmod (secret, 0600), 0);
    s_teardown (&setup);
}

int
main (void)
{
    zsys_init ();
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_client_with_accepted_key_is_served),
        cmocka_unit_test (test_client_unknown_key_refused_at_once),
        cmocka_unit_test (test_client_wrong_server_key_refused_at_once),
        cmocka_unit_test (test_client_curve_on_one_side_refused_at_once),
        cmocka_unit_test (test_client_refused_while_idle_told_at_next_request),
        cmocka_unit_test (test_client_set_keys_refuses_unusable_files),
        cmocka_unit_test (test_worker_with_accepted_key_says_hello),
        cmocka_unit_test (test_worker_refused_logs_and_retries),
        cmocka_unit_test (test_worker_key_flags_refused),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
