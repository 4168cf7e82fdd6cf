/*  =========================================================================
    test_drover_pool_create - the elastic pool's creates with a fake clock:
    the cheapest type, packing, capacity coming, every bound (creates a
    pass, instances, price, minimum, the token bucket), the backoffs
    (quota, rate limit, consecutive failures)
    =========================================================================
*/

#include "testutil_poolplan.h"

//  The cheapest fitting type: price, then fewer procs, less memory, name
static void
test_cheapest_type_chosen (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    const drover_pooltype_t *types = fx->config.types;
    assert_string_equal (drover_pooltype_cheapest (types, 3, 1, TESTUTIL_GIB, "", "")->name, "small");
    assert_string_equal (drover_pooltype_cheapest (types, 3, 3, TESTUTIL_GIB, NULL, "")->name,
                         "medium");
    assert_string_equal (drover_pooltype_cheapest (types, 3, 1, 0, "gpu=1", "")->name, "big");
    assert_string_equal (drover_pooltype_cheapest (types, 3, 1, 0, "zone=a\ngpu=1", "")->name, "big");
    assert_null (drover_pooltype_cheapest (types, 3, 1, 0, "gpu=2", ""));
    assert_null (drover_pooltype_cheapest (types, 3, 17, 0, "", ""));
    assert_null (drover_pooltype_cheapest (types, 3, 1, 65 * TESTUTIL_GIB, "", ""));
    drover_pooltype_t twins [3] = {
        { "b", 2, TESTUTIL_GIB, "", 0.5, NULL }, { "a", 2, TESTUTIL_GIB, "", 0.5, NULL },
        { "c", 2, TESTUTIL_GIB / 2, "", 0.5, NULL } };
    assert_string_equal (drover_pooltype_cheapest (twins, 2, 1, 0, "", NULL)->name, "a");
    assert_string_equal (drover_pooltype_cheapest (twins, 3, 1, 0, "", NULL)->name, "c");
    //  A type's devices: only a type with enough of each asked fits
    drover_pooltype_t gpus [3] = {
        { "cpu", 8, TESTUTIL_GIB, "", 0.1, NULL }, { "one", 8, TESTUTIL_GIB, "", 0.5, "gpu=1" },
        { "four", 8, TESTUTIL_GIB, "", 1.5, "fpga=1,gpu=4" } };
    assert_string_equal (drover_pooltype_cheapest (gpus, 3, 1, 0, "", "")->name, "cpu");
    assert_string_equal (drover_pooltype_cheapest (gpus, 3, 1, 0, "", "gpu=1")->name, "one");
    assert_string_equal (drover_pooltype_cheapest (gpus, 3, 1, 0, "", "gpu=2")->name, "four");
    assert_string_equal (drover_pooltype_cheapest (gpus, 3, 1, 0, "", "fpga=1")->name, "four");
    assert_null (drover_pooltype_cheapest (gpus, 3, 1, 0, "", "gpu=5"));
    assert_null (drover_pooltype_cheapest (gpus, 3, 1, 0, "", "tpu=1"));

    testutil_poolplan_pool (fx);
    testutil_poolplan_start (fx, 0);
    testutil_poolplan_demand (fx, 3, TESTUTIL_GIB, "", 1, 0);
    testutil_poolplan_plan_says (fx, 0, "CREATE P-1 medium run");
    assert_int_equal (zlistx_size (fx->actions), 1);
    drover_instance_view_t view;
    assert_true (drover_pool_lookup (fx->pool, "P-1", &view));
    assert_int_equal (view.state, DROVER_INSTANCE_BOOTING);
    assert_int_equal (view.procs, 4);
    assert_true (view.price > 0.09 && view.price < 0.11);
    assert_int_equal (testutil_poolplan_told (fx, "P-1 -1>1 created"), 1);
}

//  Several shapes packed into the instance just planned before another
static void
test_packs_shapes_into_planned_instance (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.types [1].procs = 8;
    fx->config.types [1].mem = 16 * TESTUTIL_GIB;
    fx->config.ntypes = 2;              //  big (gpu only) and medium, 8 procs
    testutil_poolplan_pool (fx);
    testutil_poolplan_start (fx, 0);
    drover_pooldemand_t demand [3] = {
        { 2, TESTUTIL_GIB, "", 1, "" }, { 4, TESTUTIL_GIB, "", 1, "" }, { 1, 0, "", 2, "" } };
    drover_pool_set_load (fx->pool, demand, 3, NULL, 0, 0);
    testutil_poolplan_plan_says (fx, 0, "CREATE");              //  4 + 2x2 = 8 procs
    //  One task more than fits: a second instance
    demand [0].count = 2;
    drover_pool_set_load (fx->pool, demand, 3, NULL, 0, 0);
    testutil_poolplan_plan_says (fx, 0, "CREATE P-2 medium");
    assert_int_equal (drover_pool_size (fx->pool), 2);
}

//  Booting capacity (and a registered instance the scheduler has not
//  reported yet) takes demand: no second create for the same tasks
static void
test_booting_capacity_prevents_second_create (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    testutil_poolplan_pool (fx);
    testutil_poolplan_start (fx, 0);
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 1, 0);
    testutil_poolplan_plan_says (fx, 0, "CREATE P-1 small");
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 1, 100);
    assert_int_equal (testutil_poolplan_plan (fx, 100), 0);
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_OK, "", 200);
    assert_true (drover_pool_registered (fx->pool, "P-1", 300));
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 1, 400);     //  P-1 not in the report yet
    assert_int_equal (testutil_poolplan_plan (fx, 400), 0);
    //  Once the scheduler has it and still cannot place the task: another
    drover_poolload_t load = { "P-1", 1, 2, TESTUTIL_GIB, 7 };
    drover_pooldemand_t demand = { 2, TESTUTIL_GIB, "", 1, "" };
    drover_pool_set_load (fx->pool, &demand, 1, &load, 1, 500);
    testutil_poolplan_plan_says (fx, 500, "CREATE P-2 small");
    //  A held instance coming takes no work
    assert_int_equal (drover_pool_set_behaviour (fx->pool, "P-2", DROVER_IDLE_HOLD, 600), 0);
    testutil_poolplan_plan_says (fx, 600, "CREATE P-3 small");
}

//  Tasks asking devices start instances of a type that has them, as many
//  as the devices need (not the procs), and never pack into rooms that
//  count only procs and memory
static void
test_devices_choose_type_and_count (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.types [1].devices = "gpu=2";     //  medium: 4 procs, 2 gpus
    testutil_poolplan_pool (fx);
    testutil_poolplan_start (fx, 0);
    drover_pooldemand_t demand = { 1, 0, "", 3, "gpu=1" };
    drover_pool_set_load (fx->pool, &demand, 1, NULL, 0, 0);
    testutil_poolplan_plan (fx, 0);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE P-1 medium"), 1);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE P-2 medium"), 1);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE"), 2);
    fx->config.types [1].devices = NULL;        //  the fixture's, not the pool's copy
}

//  At most max-creates creates a pass; the next pass does more at once
static void
test_max_creates_per_pass (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.max_creates = 3;
    testutil_poolplan_pool_demanding (fx, 10);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE"), 3);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 0), 0);
    testutil_poolplan_plan (fx, 0);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE"), 3);
    testutil_poolplan_plan (fx, 0);
    testutil_poolplan_plan_says (fx, 0, "CREATE");
    assert_int_equal (drover_pool_size (fx->pool), 10);
    assert_int_equal (testutil_poolplan_plan (fx, 0), 0);
    assert_true (drover_pool_next_deadline (fx->pool, 0) > 0);
}

//  Never more than max-instances live
static void
test_max_instances (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.max_instances = 3;
    testutil_poolplan_pool_demanding (fx, 30);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE"), 3);
    assert_int_equal (testutil_poolplan_plan (fx, 1000), 0);
    assert_true (drover_pool_next_deadline (fx->pool, 1000) > 1000);
    //  One goes: one more may come
    assert_int_equal (drover_pool_kill (fx->pool, "P-1", 2000), 0);
    testutil_poolplan_plan_says (fx, 2000, "DESTROY P-1");
    assert_int_equal (testutil_poolplan_said (fx, "CREATE P-4"), 1);
    drover_poolcounts_t counts;
    drover_pool_counts (fx->pool, &counts);
    assert_int_equal (counts.instances [DROVER_INSTANCE_BOOTING], 3);
    assert_int_equal (counts.instances [DROVER_INSTANCE_SHUTDOWN], 1);
    assert_int_equal (counts.creates, 4);
    assert_int_equal (counts.destroys, 1);
}

//  Never more than max-price per hour
static void
test_max_price (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.max_price = 0.25;
    testutil_poolplan_pool_demanding (fx, 10);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE"), 2);
    drover_poolcounts_t counts;
    drover_pool_counts (fx->pool, &counts);
    assert_true (counts.price > 0.19 && counts.price < 0.21);
    //  A big one is too dear even alone
    testutil_poolplan_demand (fx, 1, 0, "gpu=1", 1, 0);
    assert_int_equal (testutil_poolplan_plan (fx, 0), 0);
}

//  At least min-instances live, of the cheapest type, and the idle
//  timeout never goes below it
static void
test_min_instances (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.min_instances = 2;
    testutil_poolplan_pool (fx);
    testutil_poolplan_plan (fx, 0);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE"),
                      0);        //  not before the first list
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, NULL, 0, "", 0);
    testutil_poolplan_plan_says (fx, 0, "CREATE P-1 small");
    assert_int_equal (testutil_poolplan_said (fx, "CREATE P-2 small"), 1);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE"), 2);
    for (int index = 1; index <= 2; index++) {
        char id [16];
        snprintf (id, sizeof id, "P-%d", index);
        drover_pool_created (fx->pool, id, DROVER_POOLOP_OK, "", 10);
        drover_pool_registered (fx->pool, id, 10);
    }
    assert_int_equal (testutil_poolplan_plan (fx, 10), 0);
    testutil_poolplan_plan (fx, 10 + 60000 * 3);
    assert_int_equal (testutil_poolplan_said (fx, "RETIRE"), 0);        //  idle, but the minimum
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_IDLE);
    //  No deadline for an idle timeout that cannot act
    assert_true (drover_pool_next_deadline (fx->pool, 200000) > 200000);
}

//  Driver operations within a token bucket of ops-per-second; a create
//  not allowed now comes when a token does
static void
test_token_bucket (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.ops_per_second = 2;
    testutil_poolplan_pool (fx);
    testutil_poolplan_start (fx, 0);                    //  LIST took one of two
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 5, 0);
    testutil_poolplan_plan_says (fx, 0, "CREATE");
    assert_int_equal (testutil_poolplan_plan (fx, 0), 0);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 0), 500);
    assert_int_equal (testutil_poolplan_plan (fx, 499), 0);
    assert_int_equal (testutil_poolplan_plan (fx, 500), 1);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE P-2"), 1);
    testutil_poolplan_plan (fx, 10000);                 //  burst is ops-per-second
    assert_int_equal (testutil_poolplan_said (fx, "CREATE"), 2);
    //  A destroy waits for a token too; RETIRE and ADMIN do not
    drover_pool_kill (fx->pool, "P-1", 10000);
    drover_pool_set_behaviour (fx->pool, "P-2", DROVER_IDLE_HOLD, 10000);
    testutil_poolplan_plan_says (fx, 10000, "ADMIN P-2 hold");
    assert_int_equal (testutil_poolplan_said (fx, "DESTROY"), 0);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 10000), 10500);
    testutil_poolplan_plan_says (fx, 10500, "DESTROY P-1");
    assert_int_equal (testutil_poolplan_said (fx, "TAG"), 0);
    testutil_poolplan_plan_says (fx, 11000, "TAG P-2 hold");
}

//  After a quota error no create for quota-backoff, unless an instance
//  goes away meanwhile
static void
test_quota_backoff_and_its_early_end (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    fx->config.list_interval = 100000000;
    testutil_poolplan_pool_one_up (fx);
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 1, 100);
    testutil_poolplan_plan_says (fx, 100, "CREATE P-2");
    drover_pool_created (fx->pool, "P-2", DROVER_POOLOP_QUOTA, "too many", 200);
    assert_int_equal (testutil_poolplan_told (fx, "WARN - quota exceeded: too many"), 1);
    assert_int_equal (testutil_poolplan_told (fx, "P-2 1>-1 quota exceeded"), 1);
    assert_int_equal (drover_pool_size (fx->pool), 1);
    drover_poolcounts_t counts;
    drover_pool_counts (fx->pool, &counts);
    assert_true (counts.quota_backoff);
    assert_int_equal (counts.create_failures, 1);
    assert_int_equal (testutil_poolplan_plan (fx, 300), 0);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 300), 60200);
    assert_int_equal (testutil_poolplan_plan (fx, 60199), 0);
    testutil_poolplan_plan_says (fx, 60200, "CREATE P-3");
    //  Again: this time P-1 goes away, which ends the backoff
    drover_pool_created (fx->pool, "P-3", DROVER_POOLOP_QUOTA, "", 60300);
    assert_int_equal (testutil_poolplan_plan (fx, 60400), 0);
    drover_pool_kill (fx->pool, "P-1", 60500);
    testutil_poolplan_plan_says (fx, 60500, "DESTROY P-1");
    assert_int_equal (testutil_poolplan_said (fx, "CREATE"), 0);
    drover_pool_destroyed (fx->pool, "P-1", DROVER_POOLOP_OK, "", 60600);
    testutil_poolplan_plan_says (fx, 60600, "CREATE P-4");
}

//  Rate limited: no operation of that kind for rate-backoff, the others
//  go on (a throttle per operation, as Arvados': a rate-limited create
//  stops no destroy nor list, a rate-limited destroy stops no create)
static void
test_rate_limited_backoff (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    testutil_poolplan_pool_one_up (fx);
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 1, 100);
    testutil_poolplan_plan (fx, 100);
    drover_pool_created (fx->pool, "P-2", DROVER_POOLOP_RATE_LIMITED, "slow down", 100);
    assert_int_equal (testutil_poolplan_told (fx, "WARN - rate limited: slow down"), 1);
    drover_pool_kill (fx->pool, "P-1", 200);
    assert_int_equal (testutil_poolplan_plan (fx, 200), 1);
    assert_int_equal (testutil_poolplan_said (fx, "DESTROY P-1"), 1);   //  not held back
    assert_int_equal (drover_pool_next_deadline (fx->pool, 200), 10100);
    assert_int_equal (testutil_poolplan_plan (fx, 10099), 0);
    drover_pool_destroyed (fx->pool, "P-1", DROVER_POOLOP_RATE_LIMITED, "", 10099);
    assert_int_equal (testutil_poolplan_plan (fx, 10100), 1);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE P-3"), 1);    //  not held back
    assert_int_equal (testutil_poolplan_plan (fx, 20098), 0);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 20098), 20099);
    assert_int_equal (testutil_poolplan_plan (fx, 20099), 1);
    assert_int_equal (testutil_poolplan_said (fx, "DESTROY P-1"), 1);
}

//  A rate-limited list stops no create, and a rate-limited create no list
static void
test_rate_limits_apart (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    testutil_poolplan_pool (fx);
    testutil_poolplan_plan_says (fx, 0, "LIST");
    drover_pool_listed (fx->pool, DROVER_POOLOP_RATE_LIMITED, NULL, 0, "throttled", 0);
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 1, 10);
    assert_int_equal (testutil_poolplan_plan (fx, 10), 1);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE P-1"), 1);   //  list backed off only
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_RATE_LIMITED, "throttled", 20);
    assert_int_equal (testutil_poolplan_plan (fx, 9999), 0);
    assert_int_equal (testutil_poolplan_plan (fx, 10000), 1);
    assert_int_equal (testutil_poolplan_said (fx, "LIST"), 1);         //  create backed off only
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, NULL, 0, "", 10000);
    assert_int_equal (testutil_poolplan_plan (fx, 10019), 0);
    assert_int_equal (testutil_poolplan_plan (fx, 10020), 1);
    assert_int_equal (testutil_poolplan_said (fx, "CREATE P-2"), 1);
}

//  Consecutive create failures: a warning every warn-failures, creates
//  backed off (1 s after the second, doubling); a success resets
static void
test_consecutive_failures_warn_and_back_off (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    testutil_poolplan_pool_demanding (fx, 1);
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_FAILED, "boom", 10);
    assert_int_equal (testutil_poolplan_told (fx, "P-1 1>-1 create failed: boom"), 1);
    testutil_poolplan_plan_says (fx, 10, "CREATE P-2");         //  first failure: at once
    drover_pool_created (fx->pool, "P-2", DROVER_POOLOP_FAILED, "boom", 20);
    assert_int_equal (testutil_poolplan_plan (fx, 20), 0);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 20), 1020);
    testutil_poolplan_plan_says (fx, 1020, "CREATE P-3");
    assert_int_equal (testutil_poolplan_told (fx, "WARN"), 0);
    drover_pool_created (fx->pool, "P-3", DROVER_POOLOP_FAILED, "boom", 1030);
    assert_int_equal (testutil_poolplan_told (fx, "WARN - 3 creates failed in a row: boom"), 1);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 1030), 3030);
    testutil_poolplan_plan (fx, 3030);
    drover_pool_created (fx->pool, "P-4", DROVER_POOLOP_FAILED, "boom", 3030);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 3030), 7030);
    assert_int_equal (testutil_poolplan_told (fx, "WARN - 6 creates failed"), 0);
    assert_int_equal (testutil_poolplan_told (fx, "WARN"), 1);
    //  Six in a row: the second warning; the backoff never passes 60 s
    drover_pool_destroy (&fx->pool);
    fx->config.list_interval = 100000000;
    testutil_poolplan_pool (fx);
    testutil_poolplan_start (fx, 0);
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 1, 0);
    uint64_t now = 0;
    for (int round = 1; round <= 10; round++) {
        testutil_poolplan_plan (fx, now);
        assert_int_equal (testutil_poolplan_said (fx, "CREATE"), 1);
        char id [32];
        sscanf ((char *) zlistx_first (fx->actions), "CREATE %31s", id);
        drover_pool_created (fx->pool, id, DROVER_POOLOP_FAILED, "boom", now);
        uint64_t next = drover_pool_next_deadline (fx->pool, now);
        assert_true (next <= now + 60000);
        assert_true (round == 1 ? next == now : next > now);
        if (round < 10)
            now = next;
    }
    assert_int_equal (drover_pool_next_deadline (fx->pool, now), now + 60000);
    assert_int_equal (testutil_poolplan_told (fx, "WARN - 6 creates failed in a row"), 1);
    assert_int_equal (testutil_poolplan_told (fx, "WARN - 9 creates failed in a row"), 1);
    //  A success resets the count and the backoff
    now += 60000;
    testutil_poolplan_plan (fx, now);
    drover_pool_created (fx->pool, "P-11", DROVER_POOLOP_OK, "", now);
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 2, now);
    testutil_poolplan_plan_says (fx, now, "CREATE P-12");
    drover_pool_created (fx->pool, "P-12", DROVER_POOLOP_FAILED, "boom", now);
    testutil_poolplan_plan_says (fx, now, "CREATE P-13");       //  one failure: at once
}

//  Booting (or adopted) and never registered: destroyed at boot-timeout
int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_devices_choose_type_and_count,
                                         testutil_poolplan_setup, testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_cheapest_type_chosen, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_packs_shapes_into_planned_instance,
                                         testutil_poolplan_setup, testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_booting_capacity_prevents_second_create,
                                         testutil_poolplan_setup, testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_max_creates_per_pass, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_max_instances, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_max_price, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_min_instances, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_token_bucket, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_quota_backoff_and_its_early_end,
                                         testutil_poolplan_setup, testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_rate_limited_backoff, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_rate_limits_apart, testutil_poolplan_setup,
                                         testutil_poolplan_teardown),
        cmocka_unit_test_setup_teardown (test_consecutive_failures_warn_and_back_off,
                                         testutil_poolplan_setup, testutil_poolplan_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
