/*  =========================================================================
    test_drover_schedq_leases - drover_schedq lending idle workers' capacity
    to assign: when it lends, what a lease holds, taking from it, giving it
    back, and revoking it when something waits or the worker changes
    =========================================================================
*/

#include "testutil.h"
#include "drover_schedq.h"

//  Leases said by one call
typedef struct {
    size_t count;               //  leases recorded
    uint64_t ids [16];          //  lease ids
    char workers [16][DROVER_ID_MAX + 1];   //  their workers
    uint32_t procs [16];        //  procs each holds
    uint64_t mem [16];          //  memory each holds
} s_leases_t;

//  Record a lease
static void
s_record (const drover_schedq_lease_t *lease, void *arg)
{
    s_leases_t *leases = (s_leases_t *) arg;
    assert_true (leases->count < 16);
    assert_true (lease->id > 0);
    leases->ids [leases->count] = lease->id;
    snprintf (leases->workers [leases->count], DROVER_ID_MAX + 1, "%s", lease->worker);
    leases->procs [leases->count] = lease->procs;
    leases->mem [leases->count] = lease->mem;
    leases->count++;
}

//  Lend, returning what was lent
static s_leases_t
s_lend (drover_schedq_t *sched)
{
    s_leases_t leases = { 0 };
    int said = drover_schedq_lend (sched, s_record, &leases);
    assert_int_equal (said, (int) leases.count);
    return leases;
}

//  Revoke, returning what was revoked
static s_leases_t
s_revoke (drover_schedq_t *sched)
{
    s_leases_t leases = { 0 };
    int said = drover_schedq_revoke (sched, s_record, &leases);
    assert_int_equal (said, (int) leases.count);
    return leases;
}

//  Count placements
static void
s_count (uint64_t task, const char *worker, void *arg)
{
    (*(int *) arg)++;
}

//  A pass, returning how many it placed
static int
s_run (drover_schedq_t *sched)
{
    int placed = 0;
    int said = drover_schedq_run (sched, s_count, &placed);
    assert_int_equal (said, placed);
    return placed;
}

//  A worker's view
static drover_schedq_view_t
s_view (drover_schedq_t *sched, const char *id)
{
    drover_schedq_view_t view;
    assert_int_equal (drover_schedq_lookup (sched, id, &view), 0);
    return view;
}

static int
s_setup (void **state)
{
    drover_schedq_t *sched = drover_schedq_new (1000);
    drover_schedq_set_max_leases (sched, 2);
    *state = sched;
    return 0;
}

static int
s_teardown (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_schedq_destroy (&sched);
    return 0;
}

//  Nothing is lent by default; with max-leases 2 the two least-loaded
//  workers are lent all they have free, and a pass places nothing on them
static void
test_lends_least_loaded_up_to_max (void **state)
{
    drover_schedq_t *sched = drover_schedq_new (1000);
    drover_schedq_add_worker (sched, "a", 4, 1000, "");
    assert_int_equal (s_lend (sched).count, 0);             //  max-leases 0
    drover_schedq_destroy (&sched);

    sched = (drover_schedq_t *) *state;
    drover_schedq_add_worker (sched, "small", 2, 1000, "");
    drover_schedq_add_worker (sched, "big", 8, 4000, "");
    drover_schedq_add_worker (sched, "mid", 4, 2000, "");
    s_leases_t lent = s_lend (sched);
    assert_int_equal (lent.count, 2);
    assert_string_equal (lent.workers [0], "big");
    assert_int_equal (lent.procs [0], 8);
    assert_int_equal (lent.mem [0], 4000);
    assert_string_equal (lent.workers [1], "mid");
    assert_true (lent.ids [0] != lent.ids [1]);
    assert_int_equal (drover_schedq_leases (sched), 2);
    assert_int_equal (s_lend (sched).count, 0);             //  2 out already
    //  What is lent is not used: WORKER TABLE says so
    assert_int_equal (s_view (sched, "big").procs_used, 0);
    assert_int_equal (s_view (sched, "big").lease, lent.ids [0]);
    assert_int_equal (s_view (sched, "small").lease, 0);
    //  While nothing waits, nothing is revoked
    assert_int_equal (s_revoke (sched).count, 0);
}

//  A request that waits gets every lease revoked, once; the capacity
//  stays held until it comes back, then the request is placed
static void
test_waiting_request_revokes_then_places (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_schedq_add_worker (sched, "a", 2, 0, "");
    s_leases_t lent = s_lend (sched);
    assert_int_equal (lent.count, 1);
    assert_int_equal (drover_schedq_push (sched, 10, 0, 1, 0, NULL), 0);
    assert_int_equal (s_run (sched), 0);                    //  a is lent
    s_leases_t revoked = s_revoke (sched);
    assert_int_equal (revoked.count, 1);
    assert_int_equal (revoked.ids [0], lent.ids [0]);
    assert_int_equal (s_revoke (sched).count, 0);           //  once
    assert_int_equal (s_lend (sched).count, 0);             //  nothing while one waits
    assert_int_equal (s_run (sched), 0);                    //  held until RETURN
    assert_string_equal (drover_schedq_return (sched, lent.ids [0]), "a");
    assert_null (drover_schedq_return (sched, lent.ids [0]));   //  once
    assert_int_equal (drover_schedq_leases (sched), 0);
    assert_int_equal (s_run (sched), 1);
    assert_string_equal (drover_schedq_assigned (sched, 10), "a");
}

//  A task taken from a lease is assigned to its worker and uses what it
//  demands; the rest comes back with the RETURN; FREE gives the task's back
static void
test_take_assigns_out_of_the_lease (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_schedq_add_worker (sched, "a", 4, 1000, "gpu=1");
    uint64_t lease = s_lend (sched).ids [0];
    assert_int_equal (drover_schedq_take (sched, lease, 5, 3, 600, "gpu=1"), 0);
    assert_int_equal (drover_schedq_take (sched, lease, 6, 2, 0, ""), -1);       //  1 left
    assert_int_equal (drover_schedq_take (sched, lease, 6, 1, 500, ""), -1);     //  400 left
    assert_int_equal (drover_schedq_take (sched, lease, 5, 1, 0, ""), -1);       //  5 is assigned
    assert_int_equal (drover_schedq_take (sched, 999, 6, 1, 0, ""), -1);         //  no such lease
    assert_string_equal (drover_schedq_assigned (sched, 5), "a");
    assert_int_equal (s_view (sched, "a").procs_used, 3);
    assert_int_equal (s_view (sched, "a").mem_used, 600);
    assert_int_equal (s_view (sched, "a").tasks, 1);
    drover_schedq_return (sched, lease);
    assert_int_equal (s_view (sched, "a").procs_used, 3);
    assert_int_equal (s_view (sched, "a").lease, 0);
    //  What the lease did not use is free again: a pass can place there
    assert_int_equal (drover_schedq_push (sched, 7, 0, 1, 400, NULL), 0);
    assert_int_equal (s_run (sched), 1);
    assert_string_equal (drover_schedq_free (sched, 5), "a");
    assert_string_equal (drover_schedq_free (sched, 7), "a");
    assert_int_equal (s_view (sched, "a").procs_used, 0);
    assert_int_equal (s_view (sched, "a").mem_used, 0);
}

//  A lent worker put on probation, held, or updated by a new HELLO gets
//  its lease revoked; one that goes takes its lease with it
static void
test_worker_changes_revoke (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_schedq_set_max_leases (sched, 4);
    drover_schedq_add_worker (sched, "p", 1, 0, "");
    drover_schedq_add_worker (sched, "h", 1, 0, "");
    drover_schedq_add_worker (sched, "u", 1, 0, "");
    drover_schedq_add_worker (sched, "gone", 1, 0, "");
    assert_int_equal (s_lend (sched).count, 4);
    drover_schedq_set_probation (sched, "p", true);
    s_leases_t revoked = s_revoke (sched);
    assert_int_equal (revoked.count, 1);
    assert_string_equal (revoked.workers [0], "p");
    drover_schedq_set_admin (sched, "h", DROVER_ADMIN_HOLD);
    revoked = s_revoke (sched);
    assert_int_equal (revoked.count, 1);
    assert_string_equal (revoked.workers [0], "h");
    drover_schedq_add_worker (sched, "u", 2, 0, "");
    revoked = s_revoke (sched);
    assert_int_equal (revoked.count, 1);
    assert_string_equal (revoked.workers [0], "u");
    uint64_t gone = s_view (sched, "gone").lease;
    assert_int_equal (drover_schedq_remove_worker (sched, "gone", NULL, NULL), 0);
    assert_int_equal (drover_schedq_leases (sched), 3);
    assert_int_equal (drover_schedq_take (sched, gone, 1, 1, 0, ""), -1);
    assert_null (drover_schedq_return (sched, gone));
    //  u comes back with its new size, and is lent again
    drover_schedq_return (sched, revoked.ids [0]);
    s_leases_t lent = s_lend (sched);
    assert_int_equal (lent.count, 1);
    assert_string_equal (lent.workers [0], "u");
    assert_int_equal (lent.procs [0], 2);
}

//  A parked request that no worker could ever hold does not stop lending;
//  one that a lent worker could hold gets the leases revoked
static void
test_parked_request_revokes_only_if_lent_could_hold (void **state)
{
    drover_schedq_t *sched = (drover_schedq_t *) *state;
    drover_schedq_add_worker (sched, "a", 2, 0, "");
    assert_int_equal (drover_schedq_push (sched, 1, 0, 1, 0, "gpu=1"), 0);
    assert_int_equal (s_run (sched), 0);                    //  parked: nobody has gpu
    uint64_t lease = s_lend (sched).ids [0];
    assert_true (lease > 0);
    assert_int_equal (s_revoke (sched).count, 0);
    //  a 2-proc request fits nothing eligible now (a is lent): parked, but
    //  a could hold it
    assert_int_equal (drover_schedq_push (sched, 2, 0, 2, 0, NULL), 0);
    assert_int_equal (s_run (sched), 0);
    assert_int_equal (s_revoke (sched).count, 1);
    drover_schedq_return (sched, lease);
    assert_int_equal (s_run (sched), 1);
    assert_string_equal (drover_schedq_assigned (sched, 2), "a");
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_lends_least_loaded_up_to_max, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_waiting_request_revokes_then_places, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_take_assigns_out_of_the_lease, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_worker_changes_revoke, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_parked_request_revokes_only_if_lent_could_hold,
                                         s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
