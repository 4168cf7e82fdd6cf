/*  =========================================================================
    test_ha_watch - two brokers, a real etcd and a real PostgreSQL: the
    electors watch etcd instead of polling it, and poll when the watch breaks

    Watch: with the safety poll set to a minute (ha/safety-check=60000),
    the leader's lease is revoked behind its back; the other broker leads
    within a second, which only the watch can tell it (its next read would
    come a minute later). etcd restarted (killed, its data kept): every
    watch is cut; each broker says once that its watch is down and polls,
    then once that it is back, and the next revoke is again seen at once.

    Fallback: etcd paused (the watch connection stays open but silent;
    each reopening hangs, so its backoff grows to ha/retry-max) until each
    broker logs a wait at that cap; after resume the watch stays down for
    seconds while the
    poll reads every lease-ttl/4: a lease revoked in that window is seen
    by the poll, before the watch is back, as the log's order shows.
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_ha.h"
#include "drover_etcd.h"
#include <inttypes.h>

#define S_LEASE_TTL     2000    //  msec, ha/lease-ttl

//  The line number (from 1) of the nth line (from 1) of the file at path
//  that contains needle, 0 if there is none
static int
s_line_of (const char *path, const char *needle, int nth)
{
    FILE *file = fopen (path, "r");
    if (!file)
        return 0;
    char line [1024];
    int number = 0, found = 0;
    while (fgets (line, sizeof line, file)) {
        number++;
        if (strstr (line, needle) && ++found == nth) {
            fclose (file);
            return number;
        }
    }
    fclose (file);
    return 0;
}

//  Revoke the lease of the first candidacy (the leader's) behind its back;
//  returns the name it holds ("b1"...) in name (16 bytes)
static void
s_revoke_leader (testutil_ha_t *ha, char *name)
{
    drover_etcd_t *etcd = drover_etcd_new (ha->etcd, 2000, NULL);
    assert_non_null (etcd);
    zlistx_t *candidates = drover_etcd_range (etcd, "/drover/election/", true, 0);
    assert_non_null (candidates);
    drover_etcd_kv_t *first = (drover_etcd_kv_t *) zlistx_first (candidates);
    assert_non_null (first);
    snprintf (name, 16, "%.*s", (int) strcspn (first->value, "\n"), first->value);
    assert_int_equal (drover_etcd_revoke (etcd, first->lease), 1);
    zlistx_destroy (&candidates);
    drover_etcd_destroy (&etcd);
}

//  The broker that leads now, by the elector's own say, waiting up to
//  timeout msec for one of them: its index, or -1
static int
s_leader (testutil_ha_t *ha, int timeout)
{
    int leader = testutil_ha_leader (ha, timeout);
    return leader;
}

//  Revoke the leader's lease; the other broker (index other) logs its
//  election within limit msec of it: returns the msec it took
static int64_t
s_revoke_and_time (testutil_ha_t *ha, int other, int limit)
{
    char other_name [16];
    snprintf (other_name, sizeof other_name, "b%d", other + 1);
    const char *log = testutil_ha_log (ha, other_name);
    int before = testutil_count_lines_with (log, "elector: leader token=");
    char revoked [16];
    int64_t revoked_at = zclock_mono ();
    s_revoke_leader (ha, revoked);
    assert_string_not_equal (revoked, other_name);
    while (testutil_count_lines_with (log, "elector: leader token=") == before) {
        if (zclock_mono () - revoked_at > limit)
            fail_msg ("%s did not lead within %d ms of %s's lease revoked", other_name, limit,
                      revoked);
        zclock_sleep (5);
    }
    return zclock_mono () - revoked_at;
}

//  The watch sees a leader change at once; etcd restarted, each broker's
//  watch goes down once and comes back once, and sees the next change
static void
test_watch_sees_leader_change (void **state)
{
    (void) state;
    const char *flags [] = { "--set", "ha/safety-check=60000", NULL };
    testutil_ha_t *ha = testutil_ha_new (2, S_LEASE_TTL, flags);
    for (int index = 0; index < 2; index++)
        assert_true (testutil_await_line (testutil_ha_log (ha, index? "b2": "b1"),
                                          "elector: etcd watch up at", 5000));
    int leader = s_leader (ha, 5000);
    assert_true (leader >= 0);
    //  A quiet watch costs nothing: past its connect timeout (lease-ttl/4)
    //  an elector once woke at every turn of its loop on a timer libcurl
    //  had let fall, a whole core each
    int64_t before [2];
    for (int index = 0; index < 2; index++)
        before [index] = testutil_cpu_msec (ha->brokers [index]);
    zclock_sleep (1000);        //  the window CPU time is measured over
    for (int index = 0; index < 2; index++) {
        int64_t used = testutil_cpu_msec (ha->brokers [index]) - before [index];
        printf ("watch: b%d idle, %" PRId64 " msec CPU in a second\n", index + 1, used);
        assert_true (used < 300);
    }
    //  With the poll a minute apart, only the watch can tell the other so soon
    int64_t took = s_revoke_and_time (ha, 1 - leader, 1000);
    printf ("watch: lease revoked to the other's LEADER: %" PRId64 " ms\n", took);

    //  Every connection cut: each says once it polls, then once the watch is back
    testutil_ha_etcd_restart (ha);
    for (int index = 0; index < 2; index++) {
        const char *log = testutil_ha_log (ha, index? "b2": "b1");
        assert_true (testutil_await_line (log, "elector: etcd watch down", 5000));
        assert_true (testutil_await_line (log, "elector: etcd watch back at", 10000));
        assert_true (testutil_count_lines_with (log, "until it is back") >= 1);
    }
    leader = s_leader (ha, 10000);
    assert_true (leader >= 0);
    //  The watch is back: the next change is seen at once again
    took = s_revoke_and_time (ha, 1 - leader, 1000);
    printf ("watch: after etcd's restart, lease revoked to the other's LEADER: %" PRId64
            " ms\n", took);
    for (int index = 0; index < 2; index++) {
        const char *log = testutil_ha_log (ha, index? "b2": "b1");
        assert_int_equal (testutil_count_lines_with (log, "elector: etcd watch down"), 1);
        assert_int_equal (testutil_count_lines_with (log, "elector: etcd watch back"), 1);
    }
    testutil_ha_destroy (&ha);
}

//  etcd paused: the silent watch is not trusted; after resume the poll
//  sees a change while the watch is still down (its backoff grew)
static void
test_poll_takes_over (void **state)
{
    (void) state;
    //  (verbose: each break logs when the watch reopens)
    const char *flags [] = { "--set", "ha/safety-check=60000", "--set", "ha/retry-max=8000",
                             "--verbose", NULL };
    testutil_ha_t *ha = testutil_ha_new (2, S_LEASE_TTL, flags);
    for (int index = 0; index < 2; index++)
        assert_true (testutil_await_line (testutil_ha_log (ha, index? "b2": "b1"),
                                          "elector: etcd watch up at", 5000));
    testutil_ha_etcd_signal (ha, true);
    for (int index = 0; index < 2; index++)
        assert_true (testutil_await_line (testutil_ha_log (ha, index? "b2": "b1"),
                                          "elector: etcd watch down", 5000));
    //  Each reopening hangs on the paused server and is broken by the next
    //  failed call: the backoff doubles from 20 ms to its cap, 8 s. etcd
    //  resumes as soon as each broker has just begun such a wait, so the
    //  watch stays down for seconds whatever the machine's speed
    for (int index = 0; index < 2; index++)
        assert_true (testutil_await_line (testutil_ha_log (ha, index? "b2": "b1"),
                                          "elector: etcd watch: reopening in 8000 ms", 40000));
    testutil_ha_etcd_signal (ha, false);
    int leader = s_leader (ha, 10000);
    assert_true (leader >= 0);
    int other = 1 - leader;
    char other_name [16];
    snprintf (other_name, sizeof other_name, "b%d", other + 1);
    const char *log = testutil_ha_log (ha, other_name);
    int64_t took = s_revoke_and_time (ha, other, 3000);
    printf ("poll: lease revoked to the other's LEADER, its watch down: %" PRId64 " ms\n", took);
    //  The poll saw it: the other's LEADER came before its watch was back
    int leads = testutil_count_lines_with (log, "elector: leader token=");
    int lead_line = s_line_of (log, "elector: leader token=", leads);
    int back_line = s_line_of (log, "elector: etcd watch back", 1);
    printf ("poll: %s's LEADER at line %d, its watch back at line %d\n", other_name, lead_line,
            back_line);
    assert_true (lead_line > 0);
    assert_true (back_line == 0 || back_line > lead_line);
    //  And the watch comes back, said once
    assert_true (testutil_await_line (log, "elector: etcd watch back at", 15000));
    assert_int_equal (testutil_count_lines_with (log, "elector: etcd watch down"), 1);
    assert_int_equal (testutil_count_lines_with (log, "elector: etcd watch back"), 1);
    testutil_ha_destroy (&ha);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_watch_sees_leader_change),
        cmocka_unit_test (test_poll_takes_over),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
