/*  =========================================================================
    test_drover_postgres_sharing - what the PostgreSQL backend keeps for
    sharing a cluster (a submit's devices and preemptible flag, the owner
    assign gives a change, an attempt's device indices; the shares), on a
    real server started by the test (tests/pg_server.sh, on loopback, a
    free port): a round trip through a reopen, states of the formats
    before (drover-postgres 2, and 1 through 2) upgraded at open, a newer
    one refused. Each test gets a database of its own. Without PostgreSQL
    installed the test fails and says to install it.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_servers.h"
#include "testutil_pgfresh.h"
#include "testutil_backend.h"

//  The server this binary runs its tests on
static testutil_pgfresh_t s_server;

//  Start the server once for every test
static int
s_group_setup (void **state)
{
    testutil_pgfresh_start (&s_server, "test_drover_postgres_sharing", "sh");
    return 0;
}

//  Stop the server; its directory is kept if a test failed
static int
s_group_teardown (void **state)
{
    testutil_pgfresh_stop (&s_server);
    return 0;
}

//  A fresh database for each test
static int
s_setup (void **state)
{
    testutil_pgfresh_database (&s_server);
    return 0;
}

//  Every sharing column comes back through a reopen, written with the
//  submit and changed by later changes; devices kept as their canonical
//  text, as SQLite keeps them
static void
test_sharing_round_trip (void **state)
{
    drover_store_t *backend = testutil_pgfresh_open (&s_server);
    testutil_sharing_apply (backend, 1, 1);
    drover_store_destroy (&backend);
    assert_int_equal (testutil_pgfresh_sql (s_server.db_uri, "SELECT count (*) FROM drover_tasks WHERE id = 1"
                             " AND devices = 'fpga=1,gpu=2'::bytea"
                             " AND owner = 'bob'::bytea"), 1);
    assert_int_equal (testutil_pgfresh_sql (s_server.db_uri, "SELECT count (*) FROM drover_tasks WHERE id = 3"
                             " AND devices IS NULL AND assigned IS NULL"), 1);

    backend = testutil_pgfresh_open (&s_server);
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 3);
    testutil_sharing_assert_loaded (&loaded, 1);
    testutil_loaded_free (&loaded);
    char text [DROVER_STORE_ERROR_MAX];
    drover_change_t *read = NULL;
    assert_int_equal (drover_store_read_task (backend, 2, &read, text, sizeof text), 1);
    assert_string_equal (read->assigned, "gpu=1");
    drover_change_destroy (&read);
    drover_store_destroy (&backend);
    testutil_assert_and_free (testutil_pgfresh_format (&s_server), "drover-postgres 3");
    s_server.passed++;
}

//  The columns counted devices added, dropped: a state as format 2 wrote
//  it; and those workflows added too: as format 1 wrote it
#define S_DROP_COLUMNS_3 \
    "ALTER TABLE drover_tasks DROP COLUMN devices, DROP COLUMN assigned;"
#define S_DROP_COLUMNS_2 \
    "ALTER TABLE drover_tasks DROP COLUMN \"after\", DROP COLUMN \"begin\"," \
    " DROP COLUMN retry_delay, DROP COLUMN retry_max_delay, DROP COLUMN \"array\"," \
    " DROP COLUMN waits, DROP COLUMN due, DROP COLUMN grp, DROP COLUMN made;"

//  A state of format 2 (or 1) is upgraded at open: every task kept, none
//  asking for devices or given any, and the columns written from then on
static void
s_assert_upgraded (const char *sql)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_t *backend = testutil_pgfresh_open (&s_server);
    drover_change_t *first [] = { testutil_queued (1, 1, NULL), testutil_queued (2, 2, NULL) };
    assert_int_equal (testutil_apply (backend, first, 2, text), 0);
    drover_store_destroy (&backend);
    testutil_pgfresh_sql (s_server.db_uri, sql);

    backend = testutil_pgfresh_open (&s_server);
    testutil_assert_and_free (testutil_pgfresh_format (&s_server), "drover-postgres 3");
    testutil_loaded_t loaded = { .count = 0 };
    assert_int_equal (testutil_load (backend, 10, &loaded), 2);
    for (size_t index = 0; index < 2; index++) {
        drover_change_t *change = loaded.changes [index];
        testutil_assert_submit (change, index + 1, NULL);
        assert_int_equal (change->submit->ndevices, 0);
        assert_null (change->assigned);
    }
    testutil_loaded_free (&loaded);
    testutil_sharing_apply (backend, 3, 3);
    drover_store_destroy (&backend);

    backend = testutil_pgfresh_open (&s_server);
    assert_int_equal (testutil_load (backend, 10, &loaded), 5);
    testutil_assert_submit (loaded.changes [0], 1, NULL);
    testutil_sharing_assert_loaded (&loaded, 3);
    testutil_loaded_free (&loaded);
    drover_store_destroy (&backend);
}

//  Format 2 (before counted devices) upgraded at open
static void
test_format_2_upgraded (void **state)
{
    s_assert_upgraded (S_DROP_COLUMNS_3 " UPDATE drover_meta SET value = 'drover-postgres 2'"
                       " WHERE name = 'format'");
    s_server.passed++;
}

//  Format 1 (before workflows) upgraded at open, through format 2
static void
test_format_1_upgraded (void **state)
{
    s_assert_upgraded (S_DROP_COLUMNS_3 S_DROP_COLUMNS_2 " UPDATE drover_meta"
                       " SET value = 'drover-postgres 1' WHERE name = 'format'");
    s_server.passed++;
}

//  A state of a newer format is refused, naming both, and left as it was
static void
test_newer_format_refused (void **state)
{
    drover_store_t *backend = testutil_pgfresh_open (&s_server);
    drover_store_destroy (&backend);
    testutil_pgfresh_sql (s_server.db_uri, "UPDATE drover_meta SET value = 'drover-postgres 4'"
           " WHERE name = 'format'");
    char *error = NULL;
    backend = drover_store_open_postgres (s_server.db_uri, 0, &error);
    assert_null (backend);
    assert_non_null (error);
    assert_non_null (strstr (error, "drover-postgres 4"));
    assert_non_null (strstr (error, "'drover-postgres 3'"));
    zstr_free (&error);
    testutil_assert_and_free (testutil_pgfresh_format (&s_server), "drover-postgres 4");
    s_server.passed++;
}

//  Collect kept shares as "name weight members quota" lines (members "-"
//  for NULL)
static int
s_take_share (void *arg, const drover_store_share_t *share)
{
    char line [256];
    snprintf (line, sizeof line, "%s %u %s %s\n", share->name, share->weight,
              share->members? share->members: "-", share->quota);
    strcat ((char *) arg, line);
    return 0;
}

//  Keep a share, asserting it is kept
static void
s_save_share (drover_store_t *backend, const char *name, uint32_t weight, const char *members,
              const char *quota)
{
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_share_t share = {
        .name = name, .weight = weight, .members = members, .quota = quota
    };
    if (drover_store_save_share (backend, &share, text, sizeof text))
        fail_msg ("save_share: %s", text);
}

//  Shares come back through a reopen in name order (members NULL for an
//  owner); weight 0 drops one; a deposed leader's write is fenced
static void
test_shares_kept (void **state)
{
    char *error = NULL;
    drover_store_t *backend = drover_store_open_postgres (s_server.db_uri, 5, &error);
    assert_non_null (backend);
    s_save_share (backend, "team-b", 1, "carol", "");
    s_save_share (backend, "team-a", 3, "alice,bob", "procs=8,gpu=2");
    s_save_share (backend, "dave", 2, NULL, "queued=5");
    s_save_share (backend, "team-b", 0, NULL, "");
    s_save_share (backend, "team-a", 4, "alice", "procs=8,gpu=2");

    drover_store_t *successor = drover_store_open_postgres (s_server.db_uri, 6, &error);
    assert_non_null (successor);
    char text [DROVER_STORE_ERROR_MAX];
    drover_store_share_t late = { .name = "eve", .weight = 1, .quota = "" };
    assert_int_equal (drover_store_save_share (backend, &late, text, sizeof text), -1);
    assert_non_null (strstr (text, "fenced"));
    assert_true (drover_store_fenced (backend));
    drover_store_destroy (&backend);

    char lines [1024] = "";
    assert_int_equal (drover_store_load_shares (successor, s_take_share, lines, text,
                                                sizeof text), 2);
    assert_string_equal (lines, "dave 2 - queued=5\nteam-a 4 alice procs=8,gpu=2\n");
    drover_store_destroy (&successor);
    s_server.passed++;
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup (test_sharing_round_trip, s_setup),
        cmocka_unit_test_setup (test_format_2_upgraded, s_setup),
        cmocka_unit_test_setup (test_format_1_upgraded, s_setup),
        cmocka_unit_test_setup (test_newer_format_refused, s_setup),
        cmocka_unit_test_setup (test_shares_kept, s_setup),
    };
    return cmocka_run_group_tests (tests, s_group_setup, s_group_teardown);
}
