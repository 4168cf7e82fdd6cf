/*  =========================================================================
    test_drover_elector - the elector's records in etcd without etcd:
    names and endpoints checked, key prefixes trimmed, candidacy and
    membership values written and read back, a PEERS reply composed
    =========================================================================
*/

#include "testutil.h"
#include "drover_elector.h"

//  A key as a range returns it, value_size bytes of value
static drover_etcd_kv_t
s_kv (const char *key, const char *value, size_t value_size)
{
    drover_etcd_kv_t kv = { (char *) key, (char *) value, value_size, 1, 1, 0 };
    return kv;
}

//  A string of max bytes passes valid, one of max + 1 does not
static void
s_assert_longest (bool (*valid) (const char *), size_t max)
{
    char *text = (char *) zmalloc (max + 2);
    memset (text, 'a', max);
    assert_true (valid (text));
    text [max] = 'a';
    assert_false (valid (text));
    free (text);
}

//  A name is 1 to 64 bytes, without '/' or control characters; an
//  advertised endpoint at most 256, without control characters
static void
test_names_and_endpoints (void **state)
{
    s_assert_longest (drover_elector_name_valid, DROVER_ELECTOR_NAME_MAX);
    assert_true (drover_elector_name_valid ("broker-1"));
    assert_false (drover_elector_name_valid (""));
    assert_false (drover_elector_name_valid ("a/b"));
    assert_false (drover_elector_name_valid ("a\nb"));
    assert_false (drover_elector_name_valid ("a\x7f"));

    s_assert_longest (drover_elector_advertise_valid, DROVER_ELECTOR_ENDPOINT_MAX);
    assert_true (drover_elector_advertise_valid (""));
    assert_true (drover_elector_advertise_valid ("tcp://10.0.0.1:5555"));
    assert_false (drover_elector_advertise_valid ("tcp://a\n:1"));
}

//  Trailing '/'s go from a prefix, but a lone "/" stays
static void
test_prefix_trimmed (void **state)
{
    const char *cases [][2] = {
        { "/drover", "/drover" }, { "/drover/", "/drover" }, { "/drover///", "/drover" },
        { "/", "/" }, { "//", "/" }, { "x", "x" }
    };
    for (size_t index = 0; index < sizeof cases / sizeof cases [0]; index++) {
        char *prefix = drover_elector_prefix (cases [index][0]);
        assert_string_equal (prefix, cases [index][1]);
        zstr_free (&prefix);
    }
}

//  A candidacy reads back as written; a membership holds the queue lines
//  only when there are some
static void
test_values_round_trip (void **state)
{
    char *value = drover_elector_candidacy ("alpha", "tcp://a:5555");
    assert_string_equal (value, "alpha\ntcp://a:5555");
    char name [DROVER_ELECTOR_NAME_MAX + 1];
    char endpoint [DROVER_ELECTOR_ENDPOINT_MAX + 1];
    drover_etcd_kv_t kv = s_kv ("/d/election/1", value, strlen (value));
    assert_true (drover_elector_parse_candidacy (&kv, name, endpoint));
    assert_string_equal (name, "alpha");
    assert_string_equal (endpoint, "tcp://a:5555");
    zstr_free (&value);

    value = drover_elector_membership ("tcp://a:5555", "");
    assert_string_equal (value, "tcp://a:5555");
    zstr_free (&value);
    value = drover_elector_membership ("tcp://a:5555", "q1 tcp://a:6000");
    assert_string_equal (value, "tcp://a:5555\nq1 tcp://a:6000");
    zstr_free (&value);
}

//  A candidacy without a newline, with a NUL inside, with no name or a
//  name or endpoint too long is malformed
static void
test_malformed_candidacies (void **state)
{
    char name [DROVER_ELECTOR_NAME_MAX + 1];
    char endpoint [DROVER_ELECTOR_ENDPOINT_MAX + 1];
    drover_etcd_kv_t kv = s_kv ("k", "alpha", 5);
    assert_false (drover_elector_parse_candidacy (&kv, name, endpoint));
    kv = s_kv ("k", "alpha\ntcp://a:1\0x", 17);
    assert_false (drover_elector_parse_candidacy (&kv, name, endpoint));
    kv = s_kv ("k", "\ntcp://a:1", 10);
    assert_false (drover_elector_parse_candidacy (&kv, name, endpoint));
    kv = s_kv ("k", "alpha\n", 6);
    assert_true (drover_elector_parse_candidacy (&kv, name, endpoint));
    assert_string_equal (endpoint, "");

    char value [DROVER_ELECTOR_ENDPOINT_MAX + 80];
    memset (value, 'n', DROVER_ELECTOR_NAME_MAX + 1);
    strcpy (value + DROVER_ELECTOR_NAME_MAX + 1, "\ne");
    kv = s_kv ("k", value, strlen (value));
    assert_false (drover_elector_parse_candidacy (&kv, name, endpoint));
    value [0] = 'n';
    value [1] = '\n';
    memset (value + 2, 'e', DROVER_ELECTOR_ENDPOINT_MAX + 1);
    value [DROVER_ELECTOR_ENDPOINT_MAX + 3] = 0;
    kv = s_kv ("k", value, strlen (value));
    assert_false (drover_elector_parse_candidacy (&kv, name, endpoint));
}

//  PEERS: the count, then each member's name, its endpoint without its
//  queue lines, and whether it is the leader named; "0" without an answer
static void
test_peers_reply (void **state)
{
    zlistx_t *brokers = zlistx_new ();
    drover_etcd_kv_t alpha = s_kv ("/d/brokers/alpha", "tcp://a:1\nq tcp://a:2", 21);
    drover_etcd_kv_t beta = s_kv ("/d/brokers/beta", "tcp://b:1", 9);
    zlistx_add_end (brokers, &alpha);
    zlistx_add_end (brokers, &beta);
    zmsg_t *reply = zmsg_new ();
    drover_elector_add_peers (reply, brokers, strlen ("/d/brokers/"), "beta");
    assert_int_equal (zmsg_size (reply), 7);
    const char *expected [] = { "2", "alpha", "tcp://a:1", "0", "beta", "tcp://b:1", "1" };
    for (size_t index = 0; index < 7; index++)
        testutil_assert_and_free (zmsg_popstr (reply), expected [index]);
    zmsg_destroy (&reply);

    reply = zmsg_new ();
    drover_elector_add_peers (reply, brokers, strlen ("/d/brokers/"), "");
    const char *unled [] = { "2", "alpha", "tcp://a:1", "0", "beta", "tcp://b:1", "0" };
    for (size_t index = 0; index < 7; index++)
        testutil_assert_and_free (zmsg_popstr (reply), unled [index]);
    assert_int_equal (zmsg_size (reply), 0);
    zmsg_destroy (&reply);
    zlistx_destroy (&brokers);

    reply = zmsg_new ();
    drover_elector_add_peers (reply, NULL, 0, "alpha");
    assert_int_equal (zmsg_size (reply), 1);
    testutil_assert_and_free (zmsg_popstr (reply), "0");
    zmsg_destroy (&reply);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_names_and_endpoints),
        cmocka_unit_test (test_prefix_trimmed),
        cmocka_unit_test (test_values_round_trip),
        cmocka_unit_test (test_malformed_candidacies),
        cmocka_unit_test (test_peers_reply),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
