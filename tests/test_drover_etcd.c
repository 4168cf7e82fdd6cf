/*  =========================================================================
    test_drover_etcd - the etcd client against a real etcd started by the
    test (tests/etcd_server.sh): leases, keys, create-if-absent, ranges by
    prefix, a list whose first endpoint is dead, a paused server, bad input
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_servers.h"
#include "drover_etcd.h"

//  The etcd every test of this file talks to (started once for the group)
static testutil_etcd_t *s_etcd = NULL;

//  Start etcd for the group
static int
s_group_setup (void **state)
{
    (void) state;
    s_etcd = testutil_etcd_start ();
    return 0;
}

//  A client of the group's etcd (each test uses its own key prefix)
static int
s_setup (void **state)
{
    char *error = NULL;
    drover_etcd_t *etcd = drover_etcd_new (s_etcd->url, 2000, &error);
    assert_non_null (etcd);
    assert_null (error);
    *state = etcd;
    return 0;
}

//  Destroy the client
static int
s_teardown (void **state)
{
    drover_etcd_t *etcd = (drover_etcd_t *) *state;
    drover_etcd_destroy (&etcd);
    drover_etcd_destroy (&etcd);        //  harmless twice
    return 0;
}

//  A lease is granted with the TTL asked (or etcd's minimum), renewed, and
//  revoked; a revoked lease is gone to every later call
static void
test_lease_grant_keepalive_revoke (void **state)
{
    drover_etcd_t *etcd = (drover_etcd_t *) *state;
    int64_t lease = 0, granted = 0;
    assert_int_equal (drover_etcd_grant (etcd, 5, &lease, &granted), 0);
    assert_true (lease != 0);
    assert_int_equal (granted, 5);
    assert_true (drover_etcd_revision (etcd) > 0);
    int64_t ttl = drover_etcd_keepalive (etcd, lease);
    assert_true (ttl >= 4 && ttl <= 5);
    assert_int_equal (drover_etcd_revoke (etcd, lease), 1);
    assert_int_equal (drover_etcd_keepalive (etcd, lease), DROVER_ETCD_GONE);
    assert_int_equal (drover_etcd_revoke (etcd, lease), DROVER_ETCD_GONE);
    //  A put on a gone lease is refused, with etcd's reason
    assert_int_equal (drover_etcd_put (etcd, "/lease/k", "v", 1, lease), -1);
    assert_non_null (strstr (drover_etcd_error (etcd), "lease not found"));
}

//  Keys are set, read, listed by prefix and deleted; values are bytes
static void
test_put_get_range_delete (void **state)
{
    drover_etcd_t *etcd = (drover_etcd_t *) *state;
    assert_int_equal (drover_etcd_put (etcd, "/kv/b", "beta", 4, 0), 0);
    int64_t b_revision = drover_etcd_revision (etcd);
    assert_int_equal (drover_etcd_put (etcd, "/kv/a", "al\0pha", 6, 0), 0);
    assert_int_equal (drover_etcd_put (etcd, "/kv/c", "", 0, 0), 0);
    assert_int_equal (drover_etcd_put (etcd, "/kw/outside", "x", 1, 0), 0);

    drover_etcd_kv_t *kv = NULL;
    assert_int_equal (drover_etcd_get (etcd, "/kv/a", &kv), 1);
    assert_non_null (kv);
    assert_string_equal (kv->key, "/kv/a");
    assert_int_equal (kv->value_size, 6);
    assert_memory_equal (kv->value, "al\0pha", 6);
    assert_true (kv->create_revision > b_revision);
    assert_int_equal (kv->lease, 0);
    drover_etcd_kv_destroy (&kv);
    drover_etcd_kv_destroy (&kv);
    assert_int_equal (drover_etcd_get (etcd, "/kv/c", &kv), 1);
    assert_int_equal (kv->value_size, 0);
    assert_string_equal (kv->value, "");
    drover_etcd_kv_destroy (&kv);
    assert_int_equal (drover_etcd_get (etcd, "/kv/none", &kv), 0);
    assert_null (kv);

    //  By key: a, b, c; by create revision: b, a, c; nothing outside the prefix
    zlistx_t *list = drover_etcd_range (etcd, "/kv/", false, 0);
    assert_non_null (list);
    assert_int_equal (zlistx_size (list), 3);
    assert_string_equal (((drover_etcd_kv_t *) zlistx_first (list))->key, "/kv/a");
    assert_string_equal (((drover_etcd_kv_t *) zlistx_next (list))->key, "/kv/b");
    assert_string_equal (((drover_etcd_kv_t *) zlistx_next (list))->key, "/kv/c");
    zlistx_destroy (&list);
    list = drover_etcd_range (etcd, "/kv/", true, 2);
    assert_int_equal (zlistx_size (list), 2);
    drover_etcd_kv_t *first = (drover_etcd_kv_t *) zlistx_first (list);
    assert_string_equal (first->key, "/kv/b");
    assert_string_equal (first->value, "beta");
    assert_string_equal (((drover_etcd_kv_t *) zlistx_next (list))->key, "/kv/a");
    zlistx_destroy (&list);

    assert_int_equal (drover_etcd_delete (etcd, "/kv/b"), 1);
    assert_int_equal (drover_etcd_delete (etcd, "/kv/b"), 0);
    list = drover_etcd_range (etcd, "/kv/", false, 0);
    assert_int_equal (zlistx_size (list), 2);
    zlistx_destroy (&list);
    list = drover_etcd_range (etcd, "/nothing-here/", false, 0);
    assert_non_null (list);
    assert_int_equal (zlistx_size (list), 0);
    zlistx_destroy (&list);
}

//  create makes a key only if it is absent, and says which; a key on a
//  lease goes with the lease
static void
test_create_if_absent (void **state)
{
    drover_etcd_t *etcd = (drover_etcd_t *) *state;
    int64_t lease;
    assert_int_equal (drover_etcd_grant (etcd, 10, &lease, NULL), 0);
    int64_t revision = 0;
    assert_int_equal (drover_etcd_create (etcd, "/create/x", "first", 5, lease, &revision), 1);
    assert_true (revision > 0);
    drover_etcd_kv_t *kv;
    assert_int_equal (drover_etcd_get (etcd, "/create/x", &kv), 1);
    assert_int_equal (kv->create_revision, revision);
    assert_int_equal (kv->lease, lease);
    drover_etcd_kv_destroy (&kv);

    assert_int_equal (drover_etcd_create (etcd, "/create/x", "second", 6, 0, NULL), 0);
    assert_int_equal (drover_etcd_get (etcd, "/create/x", &kv), 1);
    assert_string_equal (kv->value, "first");
    drover_etcd_kv_destroy (&kv);

    assert_int_equal (drover_etcd_revoke (etcd, lease), 1);
    assert_int_equal (drover_etcd_get (etcd, "/create/x", &kv), 0);
    assert_int_equal (drover_etcd_create (etcd, "/create/x", "third", 5, 0, NULL), 1);
    assert_int_equal (drover_etcd_delete (etcd, "/create/x"), 1);
}

//  A list whose first endpoint is dead: the call that finds it dead fails
//  (within the timeout), the next goes to the second, which answers
static void
test_dead_endpoint_then_next (void **state)
{
    (void) state;
    char dead [64], endpoints [160];
    snprintf (dead, sizeof dead, "http://127.0.0.1:%d", testutil_free_port ());
    snprintf (endpoints, sizeof endpoints, "%s/ , %s", dead, s_etcd->url);
    drover_etcd_t *etcd = drover_etcd_new (endpoints, 500, NULL);
    assert_non_null (etcd);
    assert_string_equal (drover_etcd_endpoint (etcd), dead);    //  spaces and '/' trimmed
    int64_t before = zclock_mono ();
    assert_int_equal (drover_etcd_put (etcd, "/dead/k", "v", 1, 0), -1);
    assert_true (zclock_mono () - before < 1500);
    assert_non_null (strstr (drover_etcd_error (etcd), "etcd http://127.0.0.1:"));
    assert_string_equal (drover_etcd_endpoint (etcd), s_etcd->url);
    assert_int_equal (drover_etcd_put (etcd, "/dead/k", "v", 1, 0), 0);
    assert_int_equal (drover_etcd_delete (etcd, "/dead/k"), 1);
    drover_etcd_destroy (&etcd);
}

//  A paused etcd answers nothing: each call gives up after its timeout,
//  and after resume the same client works again
static void
test_paused_server_times_out (void **state)
{
    drover_etcd_t *etcd = (drover_etcd_t *) *state;
    int64_t lease;
    assert_int_equal (drover_etcd_grant (etcd, 10, &lease, NULL), 0);
    drover_etcd_set_timeout (etcd, 300);
    testutil_etcd_signal (s_etcd, "pause");
    int64_t before = zclock_mono ();
    int64_t ttl = drover_etcd_keepalive (etcd, lease);
    int64_t took = zclock_mono () - before;
    testutil_etcd_signal (s_etcd, "resume");
    assert_int_equal (ttl, -1);
    assert_true (took >= 250 && took < 1000);
    assert_non_null (strstr (drover_etcd_error (etcd), "imeout"));
    drover_etcd_set_timeout (etcd, 5000);
    assert_true (drover_etcd_keepalive (etcd, lease) > 0);
    assert_int_equal (drover_etcd_revoke (etcd, lease), 1);
}

//  Endpoints that are not URLs are refused with a clear message; a port
//  where no etcd listens fails each call with curl's reason, no crash
static void
test_bad_endpoints (void **state)
{
    (void) state;
    const char *bad [] = { "", ",", "127.0.0.1:2379", "ftp://127.0.0.1:2379",
                           "http://127.0.0.1:2379,tcp://x:1", "http://" };
    for (size_t index = 0; index < sizeof bad / sizeof bad [0]; index++) {
        char *error = NULL;
        assert_null (drover_etcd_new (bad [index], 1000, &error));
        assert_non_null (error);
        assert_true (strncmp (error, "etcd: ", 6) == 0);
        zstr_free (&error);
    }
    assert_null (drover_etcd_new (NULL, 1000, NULL));

    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "http://127.0.0.1:%d", testutil_free_port ());
    drover_etcd_t *etcd = drover_etcd_new (endpoint, 500, NULL);
    int64_t lease;
    assert_int_equal (drover_etcd_grant (etcd, 5, &lease, NULL), -1);
    assert_non_null (strstr (drover_etcd_error (etcd), endpoint));
    assert_null (drover_etcd_range (etcd, "/x", false, 0));
    drover_etcd_kv_t *kv = NULL;
    assert_int_equal (drover_etcd_get (etcd, "/x", &kv), -1);
    assert_null (kv);
    drover_etcd_destroy (&etcd);
}

//  ---------------------------------------------------------------------
//  A fake etcd: a ZMQ_STREAM socket speaking just enough HTTP/1.1 to give
//  each request the answer the test set with ANSWER status body, then
//  close the connection. For answers a real etcd never sends.

//  The fake etcd's actor: args is the port to bind to on 127.0.0.1
static void
s_fake_actor (zsock_t *pipe, void *args)
{
    zsock_t *stream = zsock_new (ZMQ_STREAM);
    assert (zsock_bind (stream, "tcp://127.0.0.1:%d", *(int *) args) != -1);
    zpoller_t *poller = zpoller_new (pipe, stream, NULL);
    zchunk_t *request = zchunk_new (NULL, 4096);
    char *answer = strdup ("");
    zsock_signal (pipe, 0);
    while (true) {
        void *which = zpoller_wait (poller, -1);
        if (which == pipe) {
            char *command, *status, *body;
            if (zstr_recvx (pipe, &command, &status, &body, NULL) < 1)
                break;
            bool stop = streq (command, "$TERM");
            if (!stop) {
                free (answer);
                answer = zsys_sprintf ("HTTP/1.1 %s\r\nContent-Type: application/json\r\n"
                                       "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                                       status, strlen (body), body);
                zsock_signal (pipe, 0);
            }
            zstr_free (&command);
            zstr_free (&status);
            zstr_free (&body);
            if (stop)
                break;
        }
        else
        if (which == stream) {
            zframe_t *id = zframe_recv (stream);
            zframe_t *data = zframe_recv (stream);
            if (zframe_size (data) > 0) {
                zchunk_extend (request, zframe_data (data), zframe_size (data));
                char *text = zchunk_strdup (request);
                size_t size = strlen (text);    //  a request holds no NUL
                char *end = strstr (text, "\r\n\r\n");
                char *length = end? strstr (text, "Content-Length:"): NULL;
                size_t body = length && length < end
                            ? (size_t) atol (length + strlen ("Content-Length:")): 0;
                bool whole = end && (size_t) (end + 4 - text) + body <= size;
                zstr_free (&text);
                if (whole) {
                    zchunk_set (request, NULL, 0);
                    zframe_send (&id, stream, ZFRAME_MORE + ZFRAME_REUSE);
                    zstr_send (stream, answer);
                    zframe_send (&id, stream, ZFRAME_MORE + ZFRAME_REUSE);
                    zsock_send (stream, "b", "", (size_t) 0);       //  close it
                }
            }
            else
                zchunk_set (request, NULL, 0);      //  a connection opened or closed
            zframe_destroy (&id);
            zframe_destroy (&data);
        }
        else
            break;
    }
    free (answer);
    zchunk_destroy (&request);
    zpoller_destroy (&poller);
    zsock_destroy (&stream);
}

//  Set what the fake answers next
static void
s_fake_answer (zactor_t *fake, const char *status, const char *body)
{
    zstr_sendx (fake, "ANSWER", status, body, NULL);
    zsock_wait (fake);
}

//  Answers a real etcd never sends: each call fails with a clear error (or
//  says what etcd said), never crashes, never hands over half a key
static void
test_malformed_answers (void **state)
{
    (void) state;
    int port = testutil_free_port ();
    zactor_t *fake = zactor_new (s_fake_actor, &port);
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "http://127.0.0.1:%d", port);
    drover_etcd_t *etcd = drover_etcd_new (endpoint, 1000, NULL);
    int64_t lease = 0;

    s_fake_answer (fake, "200 OK", "{\"ID\":\"7\",\"TTL\":\"5\"}");      //  the fake works
    assert_int_equal (drover_etcd_grant (etcd, 5, &lease, NULL), 0);
    assert_int_equal (lease, 7);

    s_fake_answer (fake, "200 OK", "not json");
    assert_int_equal (drover_etcd_grant (etcd, 5, &lease, NULL), -1);
    assert_non_null (strstr (drover_etcd_error (etcd), "not a JSON object"));
    s_fake_answer (fake, "200 OK", "[1,2]");
    assert_int_equal (drover_etcd_put (etcd, "/k", "v", 1, 0), -1);
    s_fake_answer (fake, "200 OK", "{\"ID\":\"0\",\"TTL\":\"5\"}");
    assert_int_equal (drover_etcd_grant (etcd, 5, &lease, NULL), -1);
    s_fake_answer (fake, "200 OK", "{\"ID\":\"9\",\"TTL\":\"five\"}");
    assert_int_equal (drover_etcd_grant (etcd, 5, &lease, NULL), -1);
    assert_non_null (strstr (drover_etcd_error (etcd), "valid ID and TTL"));

    s_fake_answer (fake, "200 OK", "{\"result\":{\"ID\":\"7\",\"TTL\":true}}");
    assert_int_equal (drover_etcd_keepalive (etcd, 7), -1);
    s_fake_answer (fake, "200 OK", "{\"result\":{\"ID\":\"8\",\"TTL\":\"5\"}}");
    assert_int_equal (drover_etcd_keepalive (etcd, 7), -1);
    assert_non_null (strstr (drover_etcd_error (etcd), "another lease"));
    s_fake_answer (fake, "200 OK", "{\"error\":{\"grpc_code\":14,\"message\":\"unavailable\"}}");
    assert_int_equal (drover_etcd_keepalive (etcd, 7), -1);
    assert_non_null (strstr (drover_etcd_error (etcd), "unavailable"));

    s_fake_answer (fake, "500 Internal Server Error", "oops");
    assert_int_equal (drover_etcd_revoke (etcd, 7), -1);
    s_fake_answer (fake, "404 Not Found",
                   "{\"error\":\"etcdserver: requested lease not found\",\"code\":5}");
    assert_int_equal (drover_etcd_revoke (etcd, 7), DROVER_ETCD_GONE);
    s_fake_answer (fake, "400 Bad Request", "{\"message\":\"bad\",\"code\":3}");
    assert_int_equal (drover_etcd_revoke (etcd, 7), -1);
    assert_non_null (strstr (drover_etcd_error (etcd), "bad (HTTP 400, code 3)"));

    const char *bad_ranges [] = {
        "{\"kvs\":\"x\"}",                                          //  not an array
        "{\"kvs\":[1]}",                                            //  not an object
        "{\"kvs\":[{\"value\":\"Yg==\"}]}",                         //  no key
        "{\"kvs\":[{\"key\":\"!!!!\"}]}",                           //  not base64
        "{\"kvs\":[{\"key\":\"YQ=\"}]}",                            //  bad length
        "{\"kvs\":[{\"key\":\"YQBi\"}]}",                           //  a NUL in the key
        "{\"kvs\":[{\"key\":\"YQ==\",\"create_revision\":\"abc\"}]}",
        "{\"kvs\":[{\"key\":\"YQ==\",\"lease\":[]}]}",
        "{\"kvs\":[{\"key\":\"YQ==\",\"value\":7}]}",
        "{\"kvs\":[{\"key\":\"YQ==\"},{\"key\":\"Y=Q=\"}]}",           //  the second is bad
    };
    for (size_t index = 0; index < sizeof bad_ranges / sizeof bad_ranges [0]; index++) {
        s_fake_answer (fake, "200 OK", bad_ranges [index]);
        zlistx_t *list = drover_etcd_range (etcd, "/", false, 0);
        if (list)
            fail_msg ("a malformed range was taken: %s", bad_ranges [index]);
        assert_non_null (strstr (drover_etcd_error (etcd), "malformed"));
    }
    s_fake_answer (fake, "200 OK", "{\"kvs\":[{\"key\":\"YQ==\",\"value\":\"Yg==\",\"lease\":5}]}");
    drover_etcd_kv_t *kv = NULL;
    assert_int_equal (drover_etcd_get (etcd, "a", &kv), 1);    //  a number as a number is fine
    assert_string_equal (kv->value, "b");
    assert_int_equal (kv->lease, 5);
    drover_etcd_kv_destroy (&kv);
    s_fake_answer (fake, "200 OK", "{\"kvs\":[{\"key\":\"Yg==\"}]}");
    assert_int_equal (drover_etcd_get (etcd, "a", &kv), 0);    //  another key is not ours
    assert_null (kv);

    s_fake_answer (fake, "200 OK", "{\"deleted\":\"x\"}");
    assert_int_equal (drover_etcd_delete (etcd, "/k"), -1);
    s_fake_answer (fake, "200 OK", "{\"succeeded\":\"yes\"}");
    assert_int_equal (drover_etcd_create (etcd, "/k", "v", 1, 0, NULL), -1);
    s_fake_answer (fake, "200 OK", "{\"succeeded\":true}");
    assert_int_equal (drover_etcd_create (etcd, "/k", "v", 1, 0, NULL), 1);
    s_fake_answer (fake, "200 OK", "{}");
    assert_int_equal (drover_etcd_create (etcd, "/k", "v", 1, 0, NULL), 0);

    drover_etcd_destroy (&etcd);
    zactor_destroy (&fake);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_lease_grant_keepalive_revoke, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_put_get_range_delete, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_create_if_absent, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_dead_endpoint_then_next, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_paused_server_times_out, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_bad_endpoints, s_setup, s_teardown),
        cmocka_unit_test (test_malformed_answers),
    };
    int failed = cmocka_run_group_tests (tests, s_group_setup, NULL);
    testutil_etcd_stop (&s_etcd, failed != 0);
    return failed;
}
