/*  =========================================================================
    test_refusals - what a refused peer and the broker's operator are told

    A broker with CURVE, real processes and real key files. A worker the
    broker refuses for good at its HELLO (403: a key pinned to other ids,
    a client's key used as a worker's) exits with the reason, one line on
    stderr, instead of trying again forever. The broker logs each refusal
    by key and reason, not as "bad input" with a hex sample, and logs the
    handshakes it refuses (no key, an unknown key, a wrong server key),
    which are silent on the wire, with the peer's address and why. An
    admin command sent with a client's key says which command needs an
    admin key and where such a key goes.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_keys.h"
#include "testutil_cluster.h"
#include <sys/stat.h>
#include <sys/wait.h>
#include "drover_keys.h"

//  The keys of one test and the broker started on them
typedef struct {
    char dir [64];              //  temp directory: broker.key, keys/, peers' pairs
    char broker_key [128];      //  the broker's key pair file
    char keys [128];            //  the keys directory (--keys)
    char rack_key [128];        //  a worker pair pinned to id rack-1 (workers/)
    char alice_key [128];       //  a client pair (clients/)
    char stranger_key [128];    //  a pair the broker does not hold
    testutil_cluster_t *cluster;    //  the broker
} s_keys_t;

//  Write a pair dir/NAME.key(_secret) and copy its public half into the
//  keys directory's role subdirectory (NULL: nowhere)
static void
s_pair (s_keys_t *self, const char *name, const char *role, const char *worker_ids,
        char *path, size_t size)
{
    snprintf (path, size, "%s/%s.key", self->dir, name);
    zcert_t *cert = testutil_save_key_pair (path);
    if (role) {
        zcert_t *public_half = zcert_new_from (zcert_public_key (cert), zcert_secret_key (cert));
        if (worker_ids)
            zcert_set_meta (public_half, "worker-ids", "%s", worker_ids);
        char *public_path = zsys_sprintf ("%s/%s/%s.key", self->keys, role, name);
        assert_int_equal (zcert_save_public (public_half, public_path), 0);
        zstr_free (&public_path);
        zcert_destroy (&public_half);
    }
    zcert_destroy (&cert);
}

//  Make the keys and start a broker on them
static s_keys_t *
s_keys_new (void)
{
    s_keys_t *self = (s_keys_t *) zmalloc (sizeof (s_keys_t));
    snprintf (self->dir, sizeof self->dir, "/tmp/drover-refusals-XXXXXX");
    assert_non_null (mkdtemp (self->dir));
    snprintf (self->keys, sizeof self->keys, "%s/keys", self->dir);
    assert_int_equal (mkdir (self->keys, 0755), 0);
    const char *roles [] = { "workers", "clients", "admins" };
    for (int index = 0; index < 3; index++) {
        char *path = zsys_sprintf ("%s/%s", self->keys, roles [index]);
        assert_int_equal (mkdir (path, 0755), 0);
        zstr_free (&path);
    }
    s_pair (self, "broker", NULL, NULL, self->broker_key, sizeof self->broker_key);
    s_pair (self, "rack", "workers", "rack-1", self->rack_key, sizeof self->rack_key);
    s_pair (self, "alice", "clients", NULL, self->alice_key, sizeof self->alice_key);
    s_pair (self, "stranger", NULL, NULL, self->stranger_key, sizeof self->stranger_key);
    const char *flags [] = { "--key", self->broker_key, "--keys", self->keys, NULL };
    self->cluster = testutil_cluster_new (flags);
    return self;
}

//  Stop the broker and remove the keys
static void
s_keys_destroy (s_keys_t **self_p)
{
    s_keys_t *self = *self_p;
    testutil_cluster_destroy (&self->cluster);
    testutil_remove_tree (self->dir);
    free (self);
    *self_p = NULL;
}

//  The broker's log
static const char *
s_broker_log (s_keys_t *self)
{
    return testutil_cluster_log (self->cluster, "broker");
}

//  Run `drover worker` with id and key against the broker, for up to
//  15 s: returns its exit status (-1 if it was still running), its stderr
//  in errors
static int
s_run_worker (s_keys_t *self, const char *id, const char *key, char *errors, size_t size)
{
    const char *argv [] = { DROVER_BIN, "worker", "--broker", self->cluster->endpoint,
                            "--id", id, "--procs", "1", "--key", key,
                            "--server-key", self->broker_key, NULL };
    char output [16384];
    int status = testutil_run_cli (argv, output, sizeof output, errors, size, 15000);
    return status == -1? -1: WIFEXITED (status)? WEXITSTATUS (status): 128 + WTERMSIG (status);
}

//  Assert text is exactly one line holding needle
static void
s_one_line_with (const char *text, const char *needle)
{
    const char *newline = strchr (text, '\n');
    if (!strstr (text, needle) || !newline || newline [1])
        fail_msg ("expected one line with '%s' on stderr, got:\n%s", needle, text);
}

//  A worker whose key is pinned to other ids is refused at HELLO for
//  good: it exits with the broker's reason, and the broker logs the
//  refusal by key
static void
test_worker_pinned_elsewhere_exits (void **state)
{
    s_keys_t *keys = s_keys_new ();
    char errors [4096];
    int status = s_run_worker (keys, "rack-2", keys->rack_key, errors, sizeof errors);
    if (status == -1)
        fail_msg ("the refused worker was still trying after 15 s; stderr:\n%s", errors);
    assert_int_not_equal (status, 0);
    s_one_line_with (errors, "may not register as worker 'rack-2'");
    assert_true (testutil_await_line (s_broker_log (keys),
                                      "guard: refused key=rack WORKER HELLO code=403", 5000));
    assert_int_equal (testutil_count_lines_with (s_broker_log (keys), "bad input"), 0);
    s_keys_destroy (&keys);
}

//  A client's key used by a worker: refused at HELLO for good, the same
static void
test_worker_with_client_key_exits (void **state)
{
    s_keys_t *keys = s_keys_new ();
    char errors [4096];
    int status = s_run_worker (keys, "node-1", keys->alice_key, errors, sizeof errors);
    if (status == -1)
        fail_msg ("the refused worker was still trying after 15 s; stderr:\n%s", errors);
    assert_int_not_equal (status, 0);
    s_one_line_with (errors, "alice is a client key: WORKER HELLO needs a worker key");
    assert_true (testutil_await_line (s_broker_log (keys),
                                      "guard: refused key=alice WORKER HELLO code=403", 5000));
    assert_int_equal (testutil_count_lines_with (s_broker_log (keys), "bad input"), 0);
    s_keys_destroy (&keys);
}

//  A DEALER to the broker, CURVE with pair (NULL: none) and the server key
static zsock_t *
s_dealer (s_keys_t *self, const char *pair_path, const char *server_path)
{
    zsock_t *dealer = zsock_new (ZMQ_DEALER);
    assert_non_null (dealer);
    zsock_set_linger (dealer, 0);
    if (pair_path) {
        char *error = NULL;
        zcert_t *pair = drover_keys_load_pair (pair_path, &error);
        zcert_t *server = drover_keys_load_public (server_path, &error);
        assert_non_null (pair);
        assert_non_null (server);
        zcert_apply (pair, dealer);
        zsock_set_curve_serverkey (dealer, zcert_public_txt (server));
        zcert_destroy (&pair);
        zcert_destroy (&server);
    }
    assert_int_equal (zsock_connect (dealer, "%s", self->cluster->endpoint), 0);
    return dealer;
}

//  Wait until a line of the broker's log holds both needles
static bool
s_await_log (s_keys_t *self, const char *needle, const char *also, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (true) {
        char *log = testutil_slurp (s_broker_log (self));
        bool found = false;
        for (char *line = log? strtok (log, "\n"): NULL; line && !found; line = strtok (NULL, "\n"))
            found = strstr (line, needle) && strstr (line, also);
        free (log);
        if (found)
            return true;
        if (zclock_mono () >= deadline)
            return false;
        zclock_sleep (10);      //  paces reading the file; the deadline bounds the wait
    }
}

//  Print the guard's lines of the broker's log, to say what it logged
static void
s_print_guard_lines (s_keys_t *self)
{
    char *log = testutil_slurp (s_broker_log (self));
    for (char *line = log? strtok (log, "\n"): NULL; line; line = strtok (NULL, "\n"))
        if (strstr (line, "guard:"))
            print_message ("%s\n", line);
    free (log);
}

//  Handshakes the broker refuses are silent on the wire: its log says who
//  was refused (the address; the key when there is one) and why
static void
test_refused_handshakes_logged (void **state)
{
    s_keys_t *keys = s_keys_new ();
    //  A key the broker does not hold: named by its public key
    char *error = NULL;
    zcert_t *stranger = drover_keys_load_public (keys->stranger_key, &error);
    assert_non_null (stranger);
    zsock_t *dealer = s_dealer (keys, keys->stranger_key, keys->broker_key);
    if (!s_await_log (keys, "guard: refused a handshake", zcert_public_txt (stranger), 5000))
        fail_msg ("no refusal of the unknown key in the broker's log");
    assert_true (s_await_log (keys, zcert_public_txt (stranger), "address=127.0.0.1", 1000));
    assert_true (s_await_log (keys, zcert_public_txt (stranger), "not among the broker's keys",
                              1000));
    zsock_destroy (&dealer);
    zcert_destroy (&stranger);

    //  No key at all: such a peer sees the mismatch too and stops, so one
    //  DEALER tries once, and the broker sees the mismatch or the peer
    //  breaking off first; peers, one after another, until the broker
    //  learned an address in time
    bool found = false;
    int64_t deadline = zclock_mono () + 10000;
    while (!found && zclock_mono () < deadline) {
        dealer = s_dealer (keys, NULL, NULL);
        found = s_await_log (keys, "does not speak CURVE", "address=127.0.0.1", 300)
             || s_await_log (keys, "broke the handshake off", "address=127.0.0.1", 0);
        zsock_destroy (&dealer);
    }
    if (!found) {
        s_print_guard_lines (keys);
        fail_msg ("no refusal of the plain connection in the broker's log");
    }

    //  A known key, but another server key than the broker's
    dealer = s_dealer (keys, keys->alice_key, keys->stranger_key);
    if (!s_await_log (keys, "not this broker's public key", "address=127.0.0.1", 10000)) {
        s_print_guard_lines (keys);
        fail_msg ("no refusal of the wrong server key in the broker's log");
    }
    zsock_destroy (&dealer);
    s_keys_destroy (&keys);
}

//  `drover hold` with a client's key: 403, in words that name the command
//  and where an admin key goes, not the wire message
static void
test_admin_command_forbidden_wording (void **state)
{
    s_keys_t *keys = s_keys_new ();
    const char *args [] = { "hold", "--key", keys->alice_key, "--server-key", keys->broker_key,
                            "node-1", NULL };
    testutil_cli_t *run = (testutil_cli_t *) zmalloc (sizeof (testutil_cli_t));
    testutil_cli (keys->cluster->endpoint, args, run);
    testutil_cli_expect (run, 1, run->err, "alice is a client key: drover hold needs an admin key");
    testutil_cli_expect (run, 1, run->err, "admins/");
    if (strstr (run->err, "WORKER ADMIN") || strstr (run->err, "a admin"))
        fail_msg ("the refusal names the wire message, or says 'a admin':\n%s", run->err);
    free (run);
    s_keys_destroy (&keys);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_worker_pinned_elsewhere_exits),
        cmocka_unit_test (test_worker_with_client_key_exits),
        cmocka_unit_test (test_refused_handshakes_logged),
        cmocka_unit_test (test_admin_command_forbidden_wording),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
