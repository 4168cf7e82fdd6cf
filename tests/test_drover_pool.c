/*  =========================================================================
    test_drover_pool - the elastic pool's decisions with a fake clock: the
    cheapest type, packing, capacity coming, every bound (creates a pass,
    instances, price, minimum, the token bucket), the backoffs (quota,
    rate limit, consecutive failures), the boot, idle, probe and shutdown
    timeouts, idle behaviours, adoption after a restart, vanished
    instances, the operator's kill, a shape no type fits
    =========================================================================
*/

#include "testutil_pool.h"
#include "drover_pool.h"

#define GIB ((uint64_t) 1 << 30)

//  A pool with what it said
typedef struct {
    drover_poolconfig_t config;     //  its settings
    drover_pool_t *pool;            //  the pool under test
    zlistx_t *actions;              //  strings, what the last plans said
    zlistx_t *notes;                //  strings, what it told
    const char *busy;               //  a worker s_demand reports running a task, or NULL
} fixture_t;

//  Record an action as "KIND instance type behaviour"
static void
s_on_action (const drover_poolaction_t *action, void *arg)
{
    fixture_t *fx = (fixture_t *) arg;
    const char *kinds [] = { "CREATE", "DESTROY", "TAG", "LIST", "RETIRE", "ADMIN" };
    char *line = NULL;
    if (action->kind == DROVER_POOL_LIST)
        line = zsys_sprintf ("LIST");
    else
    if (action->kind == DROVER_POOL_CREATE)
        line = zsys_sprintf ("CREATE %s %s %s", action->instance, action->type->name,
                             drover_idle_behaviour_name (action->behaviour));
    else
    if (action->kind == DROVER_POOL_TAG || action->kind == DROVER_POOL_ADMIN)
        line = zsys_sprintf ("%s %s %s", kinds [action->kind], action->instance,
                             drover_idle_behaviour_name (action->behaviour));
    else
        line = zsys_sprintf ("%s %s", kinds [action->kind], action->instance);
    zlistx_add_end (fx->actions, line);
}

//  Record a note as "instance from>to why" or "WARN why"
static void
s_on_note (const drover_poolnote_t *note, void *arg)
{
    fixture_t *fx = (fixture_t *) arg;
    char *line = note->warning
        ? zsys_sprintf ("WARN %s %s", note->instance ? note->instance : "-", note->why)
        : zsys_sprintf ("%s %d>%d %s", note->instance, note->from, note->to, note->why);
    zlistx_add_end (fx->notes, line);
}

//  Free a string of a list
static void
s_string_destroy (void **item_p)
{
    zstr_free ((char **) item_p);
}

//  Settings with Arvados' defaults and three types
static int
s_setup (void **state)
{
    fixture_t *fx = (fixture_t *) zmalloc (sizeof (fixture_t));
    drover_poolconfig_t *config = &fx->config;
    testutil_pool_defaults (config);
    config->max_instances = 64;
    config->ntypes = 3;
    config->types [0] = (drover_pooltype_t) { "big", 16, 64 * GIB, "gpu=1\nzone=a", 1.20 };
    config->types [1] = (drover_pooltype_t) { "medium", 4, 8 * GIB, "", 0.10 };
    config->types [2] = (drover_pooltype_t) { "small", 2, 4 * GIB, "", 0.10 };
    fx->actions = zlistx_new ();
    zlistx_set_destructor (fx->actions, s_string_destroy);
    fx->notes = zlistx_new ();
    zlistx_set_destructor (fx->notes, s_string_destroy);
    *state = fx;
    return 0;
}

static int
s_teardown (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    drover_pool_destroy (&fx->pool);
    assert_null (fx->pool);
    drover_pool_destroy (&fx->pool);        //  harmless twice
    zlistx_destroy (&fx->actions);
    zlistx_destroy (&fx->notes);
    free (fx);
    return 0;
}

//  Make the pool from the fixture's settings (tests change them first)
static drover_pool_t *
s_pool (fixture_t *fx)
{
    fx->pool = drover_pool_new (&fx->config, "P-");
    drover_pool_set_notify (fx->pool, s_on_note, fx);
    return fx->pool;
}

//  Plan at now, keeping only what this plan says; returns how many actions
static size_t
s_plan (fixture_t *fx, uint64_t now)
{
    zlistx_purge (fx->actions);
    drover_pool_plan (fx->pool, now, s_on_action, fx);
    return zlistx_size (fx->actions);
}

//  Count the actions of the last plan starting with prefix
static size_t
s_said (fixture_t *fx, const char *prefix)
{
    size_t count = 0;
    for (char *line = (char *) zlistx_first (fx->actions); line;
         line = (char *) zlistx_next (fx->actions))
        if (strncmp (line, prefix, strlen (prefix)) == 0)
            count++;
    return count;
}

//  Count the notes containing text
static size_t
s_told (fixture_t *fx, const char *text)
{
    size_t count = 0;
    for (char *line = (char *) zlistx_first (fx->notes); line;
         line = (char *) zlistx_next (fx->notes))
        if (strstr (line, text))
            count++;
    return count;
}

//  Plan at now and assert it says exactly one action starting with prefix
static void
s_plan_says (fixture_t *fx, uint64_t now, const char *prefix)
{
    s_plan (fx, now);
    assert_int_equal (s_said (fx, prefix), 1);
}

//  The first plan lists; an empty list lets creates go
static void
s_start (fixture_t *fx, uint64_t now)
{
    s_plan_says (fx, now, "LIST");
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, NULL, 0, "", now);
}

//  Set demand of one shape, no workers
static void
s_demand (fixture_t *fx, uint32_t procs, uint64_t mem, const char *labels, uint32_t count,
          uint64_t now)
{
    drover_pooldemand_t demand = { procs, mem, labels, count };
    drover_poolload_t load = { fx->busy, 1, 2, GIB, 42 };
    drover_pool_set_load (fx->pool, &demand, 1, &load, fx->busy ? 1 : 0, now);
}

//  Report one worker's load, no demand
static void
s_worker_load (fixture_t *fx, const char *id, uint32_t tasks, uint64_t now)
{
    drover_poolload_t load = { id, tasks, tasks, tasks * GIB, tasks ? 42 : 0 };
    drover_pool_set_load (fx->pool, NULL, 0, &load, 1, now);
}

//  Return an instance's state
static int
s_state (fixture_t *fx, const char *id)
{
    drover_instance_view_t view;
    if (!drover_pool_lookup (fx->pool, id, &view))
        return -1;
    return view.state;
}

//  Create P-1 and bring it up, idle
static void
s_one_up (fixture_t *fx, uint64_t now)
{
    s_demand (fx, 2, GIB, "", 1, now);
    s_plan_says (fx, now, "CREATE P-1 small run");
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_OK, "", now);
    assert_true (drover_pool_registered (fx->pool, "P-1", now));
    assert_int_equal (s_state (fx, "P-1"), DROVER_INSTANCE_IDLE);
    s_worker_load (fx, "P-1", 1, now);
    assert_int_equal (s_state (fx, "P-1"), DROVER_INSTANCE_RUNNING);
    fx->busy = "P-1";               //  reported busy from now on
}

//  Make the pool, start it and bring P-1 up (s_one_up), all at 0
static void
s_pool_one_up (fixture_t *fx)
{
    s_pool (fx);
    s_start (fx, 0);
    s_one_up (fx, 0);
}

//  Make the pool, start it, demand count small tasks (2 procs, 1 GiB) and
//  plan, all at 0
static void
s_pool_demanding (fixture_t *fx, uint32_t count)
{
    s_pool (fx);
    s_start (fx, 0);
    s_demand (fx, 2, GIB, "", count, 0);
    s_plan (fx, 0);
}

//  A LIST planned at plan_at answers at listed_at without P-1 (destroyed):
//  P-1 is gone, and the pool tells so
static void
s_listed_without_p1 (fixture_t *fx, uint64_t plan_at, uint64_t listed_at)
{
    s_plan_says (fx, plan_at, "LIST");
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, NULL, 0, "", listed_at);
    assert_int_equal (s_state (fx, "P-1"), -1);
    assert_int_equal (s_told (fx, "P-1 4>-1 gone"), 1);
}

//  The cheapest fitting type: price, then fewer procs, less memory, name
static void
test_cheapest_type_chosen (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    const drover_pooltype_t *types = fx->config.types;
    assert_string_equal (drover_pooltype_cheapest (types, 3, 1, GIB, "")->name, "small");
    assert_string_equal (drover_pooltype_cheapest (types, 3, 3, GIB, NULL)->name, "medium");
    assert_string_equal (drover_pooltype_cheapest (types, 3, 1, 0, "gpu=1")->name, "big");
    assert_string_equal (drover_pooltype_cheapest (types, 3, 1, 0, "zone=a\ngpu=1")->name, "big");
    assert_null (drover_pooltype_cheapest (types, 3, 1, 0, "gpu=2"));
    assert_null (drover_pooltype_cheapest (types, 3, 17, 0, ""));
    assert_null (drover_pooltype_cheapest (types, 3, 1, 65 * GIB, ""));
    drover_pooltype_t twins [3] = {
        { "b", 2, GIB, "", 0.5 }, { "a", 2, GIB, "", 0.5 }, { "c", 2, GIB / 2, "", 0.5 } };
    assert_string_equal (drover_pooltype_cheapest (twins, 2, 1, 0, "")->name, "a");
    assert_string_equal (drover_pooltype_cheapest (twins, 3, 1, 0, "")->name, "c");

    s_pool (fx);
    s_start (fx, 0);
    s_demand (fx, 3, GIB, "", 1, 0);
    s_plan_says (fx, 0, "CREATE P-1 medium run");
    assert_int_equal (zlistx_size (fx->actions), 1);
    drover_instance_view_t view;
    assert_true (drover_pool_lookup (fx->pool, "P-1", &view));
    assert_int_equal (view.state, DROVER_INSTANCE_BOOTING);
    assert_int_equal (view.procs, 4);
    assert_true (view.price > 0.09 && view.price < 0.11);
    assert_int_equal (s_told (fx, "P-1 -1>1 created"), 1);
}

//  Several shapes packed into the instance just planned before another
static void
test_packs_shapes_into_planned_instance (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    fx->config.types [1].procs = 8;
    fx->config.types [1].mem = 16 * GIB;
    fx->config.ntypes = 2;              //  big (gpu only) and medium, 8 procs
    s_pool (fx);
    s_start (fx, 0);
    drover_pooldemand_t demand [3] = {
        { 2, GIB, "", 1 }, { 4, GIB, "", 1 }, { 1, 0, "", 2 } };
    drover_pool_set_load (fx->pool, demand, 3, NULL, 0, 0);
    s_plan_says (fx, 0, "CREATE");              //  4 + 2x2 = 8 procs
    //  One task more than fits: a second instance
    demand [0].count = 2;
    drover_pool_set_load (fx->pool, demand, 3, NULL, 0, 0);
    s_plan_says (fx, 0, "CREATE P-2 medium");
    assert_int_equal (drover_pool_size (fx->pool), 2);
}

//  Booting capacity (and a registered instance the scheduler has not
//  reported yet) takes demand: no second create for the same tasks
static void
test_booting_capacity_prevents_second_create (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    s_pool (fx);
    s_start (fx, 0);
    s_demand (fx, 2, GIB, "", 1, 0);
    s_plan_says (fx, 0, "CREATE P-1 small");
    s_demand (fx, 2, GIB, "", 1, 100);
    assert_int_equal (s_plan (fx, 100), 0);
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_OK, "", 200);
    assert_true (drover_pool_registered (fx->pool, "P-1", 300));
    s_demand (fx, 2, GIB, "", 1, 400);     //  P-1 not in the report yet
    assert_int_equal (s_plan (fx, 400), 0);
    //  Once the scheduler has it and still cannot place the task: another
    drover_poolload_t load = { "P-1", 1, 2, GIB, 7 };
    drover_pooldemand_t demand = { 2, GIB, "", 1 };
    drover_pool_set_load (fx->pool, &demand, 1, &load, 1, 500);
    s_plan_says (fx, 500, "CREATE P-2 small");
    //  A held instance coming takes no work
    assert_int_equal (drover_pool_set_behaviour (fx->pool, "P-2", DROVER_IDLE_HOLD, 600), 0);
    s_plan_says (fx, 600, "CREATE P-3 small");
}

//  At most max-creates creates a pass; the next pass does more at once
static void
test_max_creates_per_pass (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    fx->config.max_creates = 3;
    s_pool_demanding (fx, 10);
    assert_int_equal (s_said (fx, "CREATE"), 3);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 0), 0);
    s_plan (fx, 0);
    assert_int_equal (s_said (fx, "CREATE"), 3);
    s_plan (fx, 0);
    s_plan_says (fx, 0, "CREATE");
    assert_int_equal (drover_pool_size (fx->pool), 10);
    assert_int_equal (s_plan (fx, 0), 0);
    assert_true (drover_pool_next_deadline (fx->pool, 0) > 0);
}

//  Never more than max-instances live
static void
test_max_instances (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    fx->config.max_instances = 3;
    s_pool_demanding (fx, 30);
    assert_int_equal (s_said (fx, "CREATE"), 3);
    assert_int_equal (s_plan (fx, 1000), 0);
    assert_true (drover_pool_next_deadline (fx->pool, 1000) > 1000);
    //  One goes: one more may come
    assert_int_equal (drover_pool_kill (fx->pool, "P-1", 2000), 0);
    s_plan_says (fx, 2000, "DESTROY P-1");
    assert_int_equal (s_said (fx, "CREATE P-4"), 1);
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
    fixture_t *fx = (fixture_t *) *state;
    fx->config.max_price = 0.25;
    s_pool_demanding (fx, 10);
    assert_int_equal (s_said (fx, "CREATE"), 2);
    drover_poolcounts_t counts;
    drover_pool_counts (fx->pool, &counts);
    assert_true (counts.price > 0.19 && counts.price < 0.21);
    //  A big one is too dear even alone
    s_demand (fx, 1, 0, "gpu=1", 1, 0);
    assert_int_equal (s_plan (fx, 0), 0);
}

//  At least min-instances live, of the cheapest type, and the idle
//  timeout never goes below it
static void
test_min_instances (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    fx->config.min_instances = 2;
    s_pool (fx);
    s_plan (fx, 0);
    assert_int_equal (s_said (fx, "CREATE"), 0);        //  not before the first list
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, NULL, 0, "", 0);
    s_plan_says (fx, 0, "CREATE P-1 small");
    assert_int_equal (s_said (fx, "CREATE P-2 small"), 1);
    assert_int_equal (s_said (fx, "CREATE"), 2);
    for (int index = 1; index <= 2; index++) {
        char id [16];
        snprintf (id, sizeof id, "P-%d", index);
        drover_pool_created (fx->pool, id, DROVER_POOLOP_OK, "", 10);
        drover_pool_registered (fx->pool, id, 10);
    }
    assert_int_equal (s_plan (fx, 10), 0);
    s_plan (fx, 10 + 60000 * 3);
    assert_int_equal (s_said (fx, "RETIRE"), 0);        //  idle, but the minimum
    assert_int_equal (s_state (fx, "P-1"), DROVER_INSTANCE_IDLE);
    //  No deadline for an idle timeout that cannot act
    assert_true (drover_pool_next_deadline (fx->pool, 200000) > 200000);
}

//  Driver operations within a token bucket of ops-per-second; a create
//  not allowed now comes when a token does
static void
test_token_bucket (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    fx->config.ops_per_second = 2;
    s_pool (fx);
    s_start (fx, 0);                    //  LIST took one of two
    s_demand (fx, 2, GIB, "", 5, 0);
    s_plan_says (fx, 0, "CREATE");
    assert_int_equal (s_plan (fx, 0), 0);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 0), 500);
    assert_int_equal (s_plan (fx, 499), 0);
    assert_int_equal (s_plan (fx, 500), 1);
    assert_int_equal (s_said (fx, "CREATE P-2"), 1);
    s_plan (fx, 10000);                 //  burst is ops-per-second
    assert_int_equal (s_said (fx, "CREATE"), 2);
    //  A destroy waits for a token too; RETIRE and ADMIN do not
    drover_pool_kill (fx->pool, "P-1", 10000);
    drover_pool_set_behaviour (fx->pool, "P-2", DROVER_IDLE_HOLD, 10000);
    s_plan_says (fx, 10000, "ADMIN P-2 hold");
    assert_int_equal (s_said (fx, "DESTROY"), 0);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 10000), 10500);
    s_plan_says (fx, 10500, "DESTROY P-1");
    assert_int_equal (s_said (fx, "TAG"), 0);
    s_plan_says (fx, 11000, "TAG P-2 hold");
}

//  After a quota error no create for quota-backoff, unless an instance
//  goes away meanwhile
static void
test_quota_backoff_and_its_early_end (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    fx->config.list_interval = 100000000;
    s_pool_one_up (fx);
    s_demand (fx, 2, GIB, "", 1, 100);
    s_plan_says (fx, 100, "CREATE P-2");
    drover_pool_created (fx->pool, "P-2", DROVER_POOLOP_QUOTA, "too many", 200);
    assert_int_equal (s_told (fx, "WARN - quota exceeded: too many"), 1);
    assert_int_equal (s_told (fx, "P-2 1>-1 quota exceeded"), 1);
    assert_int_equal (drover_pool_size (fx->pool), 1);
    drover_poolcounts_t counts;
    drover_pool_counts (fx->pool, &counts);
    assert_true (counts.quota_backoff);
    assert_int_equal (counts.create_failures, 1);
    assert_int_equal (s_plan (fx, 300), 0);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 300), 60200);
    assert_int_equal (s_plan (fx, 60199), 0);
    s_plan_says (fx, 60200, "CREATE P-3");
    //  Again: this time P-1 goes away, which ends the backoff
    drover_pool_created (fx->pool, "P-3", DROVER_POOLOP_QUOTA, "", 60300);
    assert_int_equal (s_plan (fx, 60400), 0);
    drover_pool_kill (fx->pool, "P-1", 60500);
    s_plan_says (fx, 60500, "DESTROY P-1");
    assert_int_equal (s_said (fx, "CREATE"), 0);
    drover_pool_destroyed (fx->pool, "P-1", DROVER_POOLOP_OK, "", 60600);
    s_plan_says (fx, 60600, "CREATE P-4");
}

//  Rate limited: no driver operation at all for rate-backoff
static void
test_rate_limited_backoff (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    s_pool_one_up (fx);
    s_demand (fx, 2, GIB, "", 1, 100);
    s_plan (fx, 100);
    drover_pool_created (fx->pool, "P-2", DROVER_POOLOP_RATE_LIMITED, "slow down", 100);
    assert_int_equal (s_told (fx, "WARN - rate limited: slow down"), 1);
    drover_pool_kill (fx->pool, "P-1", 200);
    assert_int_equal (s_plan (fx, 200), 0);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 200), 10100);
    assert_int_equal (s_plan (fx, 10099), 0);
    assert_int_equal (s_plan (fx, 10100), 2);
    assert_int_equal (s_said (fx, "DESTROY P-1"), 1);
    assert_int_equal (s_said (fx, "CREATE P-3"), 1);
    drover_pool_destroyed (fx->pool, "P-1", DROVER_POOLOP_RATE_LIMITED, "", 10100);
    assert_int_equal (s_plan (fx, 20099), 0);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 20099), 20100);
    assert_int_equal (s_plan (fx, 20100), 1);
    assert_int_equal (s_said (fx, "DESTROY P-1"), 1);
}

//  Consecutive create failures: a warning every warn-failures, creates
//  backed off (1 s after the second, doubling); a success resets
static void
test_consecutive_failures_warn_and_back_off (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    s_pool_demanding (fx, 1);
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_FAILED, "boom", 10);
    assert_int_equal (s_told (fx, "P-1 1>-1 create failed: boom"), 1);
    s_plan_says (fx, 10, "CREATE P-2");         //  first failure: at once
    drover_pool_created (fx->pool, "P-2", DROVER_POOLOP_FAILED, "boom", 20);
    assert_int_equal (s_plan (fx, 20), 0);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 20), 1020);
    s_plan_says (fx, 1020, "CREATE P-3");
    assert_int_equal (s_told (fx, "WARN"), 0);
    drover_pool_created (fx->pool, "P-3", DROVER_POOLOP_FAILED, "boom", 1030);
    assert_int_equal (s_told (fx, "WARN - 3 creates failed in a row: boom"), 1);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 1030), 3030);
    s_plan (fx, 3030);
    drover_pool_created (fx->pool, "P-4", DROVER_POOLOP_FAILED, "boom", 3030);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 3030), 7030);
    assert_int_equal (s_told (fx, "WARN - 6 creates failed"), 0);
    assert_int_equal (s_told (fx, "WARN"), 1);
    //  Six in a row: the second warning; the backoff never passes 60 s
    drover_pool_destroy (&fx->pool);
    fx->config.list_interval = 100000000;
    s_pool (fx);
    s_start (fx, 0);
    s_demand (fx, 2, GIB, "", 1, 0);
    uint64_t now = 0;
    for (int round = 1; round <= 10; round++) {
        s_plan (fx, now);
        assert_int_equal (s_said (fx, "CREATE"), 1);
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
    assert_int_equal (s_told (fx, "WARN - 6 creates failed in a row"), 1);
    assert_int_equal (s_told (fx, "WARN - 9 creates failed in a row"), 1);
    //  A success resets the count and the backoff
    now += 60000;
    s_plan (fx, now);
    drover_pool_created (fx->pool, "P-11", DROVER_POOLOP_OK, "", now);
    s_demand (fx, 2, GIB, "", 2, now);
    s_plan_says (fx, now, "CREATE P-12");
    drover_pool_created (fx->pool, "P-12", DROVER_POOLOP_FAILED, "boom", now);
    s_plan_says (fx, now, "CREATE P-13");       //  one failure: at once
}

//  Booting (or adopted) and never registered: destroyed at boot-timeout
static void
test_boot_timeout (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    fx->config.list_interval = 100000000;
    s_pool (fx);
    s_start (fx, 0);
    s_demand (fx, 2, GIB, "", 1, 1000);
    s_plan (fx, 1000);
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_OK, "", 5000);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 5000), 601000);
    assert_int_equal (s_plan (fx, 600999), 0);
    s_plan_says (fx, 601000, "DESTROY P-1");
    assert_int_equal (s_state (fx, "P-1"), DROVER_INSTANCE_SHUTDOWN);
    assert_int_equal (s_told (fx, "P-1 1>4 boot timeout"), 1);
    //  The demand is still there: a new one (P-1 is no capacity now)
    assert_int_equal (s_said (fx, "CREATE P-2"), 1);
}

//  Idle for idle-timeout: retired (no new work), destroyed once the
//  scheduler says it is idle, forgotten when a list no longer has it
static void
test_idle_timeout_retires_then_destroys (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    s_pool_one_up (fx);
    s_worker_load (fx, "P-1", 0, 1000);         //  its task done
    assert_int_equal (s_state (fx, "P-1"), DROVER_INSTANCE_IDLE);
    drover_instance_view_t view;
    drover_pool_lookup (fx->pool, "P-1", &view);
    assert_int_equal (view.last_task, 42);
    assert_int_equal (view.last_busy, 0);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 1000), 60000);  //  the list
    assert_int_equal (s_plan (fx, 59999), 0);
    s_plan_says (fx, 61000, "RETIRE P-1");
    assert_int_equal (s_said (fx, "DESTROY"), 0);
    assert_int_equal (s_state (fx, "P-1"), DROVER_INSTANCE_SHUTDOWN);
    assert_int_equal (s_told (fx, "P-1 2>4 idle timeout"), 1);
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, NULL, 0, "", 61000);  //  before destroy
    assert_int_equal (s_state (fx, "P-1"), -1);     //  vanished, even retiring
    assert_int_equal (s_told (fx, "P-1 4>-1 vanished"), 1);
}

//  A retired instance is destroyed when the scheduler says so, then gone
static void
test_retired_destroyed_then_gone (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    fx->config.list_interval = 1000000;
    s_pool_one_up (fx);
    s_worker_load (fx, "P-1", 0, 1000);
    s_plan_says (fx, 61000, "RETIRE P-1");
    assert_int_equal (s_plan (fx, 62000), 0);
    drover_pool_retired (fx->pool, "P-1", 63000);
    s_plan_says (fx, 63000, "DESTROY P-1");
    drover_pool_destroyed (fx->pool, "P-1", DROVER_POOLOP_OK, "", 63100);
    s_listed_without_p1 (fx, 63100, 63200);     //  a list soon after a destroy
}

//  Lost: unknown; registered again within probe-timeout is fine, else
//  destroyed
static void
test_probe_timeout (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    fx->config.list_interval = 100000000;
    s_pool_one_up (fx);
    drover_pool_lost (fx->pool, "P-1", "silent", 1000);
    assert_int_equal (s_state (fx, "P-1"), DROVER_INSTANCE_UNKNOWN);
    assert_int_equal (s_told (fx, "P-1 3>0 lost: silent"), 1);
    drover_pool_registered (fx->pool, "P-1", 2000);
    assert_int_equal (s_state (fx, "P-1"), DROVER_INSTANCE_IDLE);
    drover_pool_lost (fx->pool, "P-1", "left", 3000);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 3000), 603000);
    assert_int_equal (s_plan (fx, 602999), 0);
    s_plan_says (fx, 603000, "DESTROY P-1");
    assert_int_equal (s_told (fx, "P-1 0>4 probe timeout"), 1);
}

//  Still listed shutdown-timeout after a destroy, or the destroy failed:
//  destroyed again
static void
test_shutdown_timeout (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    s_pool_one_up (fx);
    drover_pool_kill (fx->pool, "P-1", 1000);
    s_plan_says (fx, 1000, "DESTROY P-1");
    drover_pool_destroyed (fx->pool, "P-1", DROVER_POOLOP_OK, "", 1100);
    s_plan_says (fx, 1100, "LIST");
    drover_poolentry_t entry = { "P-1", "small", "drover", DROVER_IDLE_RUN };
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, &entry, 1, "", 1200);
    assert_int_equal (s_state (fx, "P-1"), DROVER_INSTANCE_SHUTDOWN);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 1200), 11000);
    assert_int_equal (s_plan (fx, 10999), 0);
    s_plan_says (fx, 11000, "DESTROY P-1");
    drover_pool_destroyed (fx->pool, "P-1", DROVER_POOLOP_FAILED, "stuck", 11100);
    assert_int_equal (s_told (fx, "WARN P-1 destroy failed: stuck"), 1);
    assert_int_equal (s_plan (fx, 20999), 0);
    s_plan_says (fx, 21000, "DESTROY P-1");
    drover_poolcounts_t counts;
    drover_pool_counts (fx->pool, &counts);
    assert_int_equal (counts.destroys, 3);
    //  Its worker left once destroyed, and the next list lacks it: gone
    drover_pool_lost (fx->pool, "P-1", "left", 21050);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 21050), 61100);
    s_listed_without_p1 (fx, 61100, 61100);
}

//  A destroy that failed, of an instance the driver no longer lists: gone,
//  not destroyed again and again
static void
test_destroy_failed_and_unlisted_is_gone (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    fx->config.shutdown_timeout = 1000000;
    s_pool_one_up (fx);
    drover_pool_kill (fx->pool, "P-1", 1000);
    s_plan_says (fx, 1000, "DESTROY P-1");
    s_plan (fx, 1050);                          //  a list begins, the destroy in flight
    assert_int_equal (s_said (fx, "LIST"), 0);
    drover_pool_destroyed (fx->pool, "P-1", DROVER_POOLOP_FAILED, "no such", 1100);
    s_plan_says (fx, 60000, "LIST");
    assert_int_equal (s_said (fx, "DESTROY"), 0);
    drover_poolentry_t entry = { "P-1", "small", "drover", DROVER_IDLE_RUN };
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, &entry, 1, "", 60000);
    assert_int_equal (s_state (fx, "P-1"), DROVER_INSTANCE_SHUTDOWN);  //  still listed
    s_listed_without_p1 (fx, 120000, 120000);
}

//  Hold: tagged and kept off new work, never retired nor timed out;
//  drain: retired as soon as idle
static void
test_drain_and_hold (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    s_pool_one_up (fx);
    assert_int_equal (drover_pool_set_behaviour (fx->pool, "P-1", DROVER_IDLE_HOLD, 100), 0);
    assert_int_equal (s_told (fx, "P-1 3>3 behaviour hold"), 1);
    s_plan_says (fx, 100, "TAG P-1 hold");
    assert_int_equal (s_said (fx, "ADMIN P-1 hold"), 1);
    drover_pool_tagged (fx->pool, "P-1", DROVER_POOLOP_OK, "", 200);
    s_worker_load (fx, "P-1", 0, 300);
    assert_int_equal (s_state (fx, "P-1"), DROVER_INSTANCE_IDLE);
    s_plan (fx, 1000000);
    assert_int_equal (s_said (fx, "RETIRE"), 0);
    drover_pool_lost (fx->pool, "P-1", "silent", 1000000);
    s_plan (fx, 5000000);                       //  lost, held: no probe timeout
    assert_int_equal (s_said (fx, "DESTROY"), 0);
    drover_pool_registered (fx->pool, "P-1", 5000000);
    //  Drain: retired at once when idle, then destroyed
    assert_int_equal (drover_pool_set_behaviour (fx->pool, "P-1", DROVER_IDLE_DRAIN, 5000000), 0);
    s_plan_says (fx, 5000000, "ADMIN P-1 drain");
    assert_int_equal (s_said (fx, "RETIRE P-1"), 1);
    assert_int_equal (s_said (fx, "TAG"), 0);           //  shutting down: no tag
    assert_int_equal (s_told (fx, "P-1 2>4 drained"), 1);
    assert_int_equal (drover_pool_set_behaviour (fx->pool, "P-1", DROVER_IDLE_RUN, 5000000), -1);
    assert_int_equal (drover_pool_set_behaviour (fx->pool, "nobody", DROVER_IDLE_RUN, 0), -1);
    drover_pool_retired (fx->pool, "P-1", 5000100);
    s_plan_says (fx, 5000100, "DESTROY P-1");
}

//  A list adopts our tagged instances: unknown until registered (at once
//  idle if its worker registered before), its behaviour restored (ADMIN),
//  an unknown type said in why, other pools' ignored
static void
test_adoption (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    s_pool (fx);
    assert_false (drover_pool_registered (fx->pool, "OLD-2", 0));     //  before the list
    s_plan (fx, 0);
    drover_poolentry_t entries [5] = {
        { "OLD-1", "small", "drover", DROVER_IDLE_RUN },
        { "OLD-2", "medium", "drover", DROVER_IDLE_RUN },
        { "OLD-3", "small", "drover", DROVER_IDLE_HOLD },
        { "OLD-4", "huge", "drover", DROVER_IDLE_RUN },
        { "THEIRS", "small", "other", DROVER_IDLE_RUN } };
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, entries, 5, "", 100);
    assert_int_equal (drover_pool_size (fx->pool), 4);
    assert_int_equal (s_state (fx, "OLD-1"), DROVER_INSTANCE_UNKNOWN);
    assert_int_equal (s_state (fx, "OLD-2"), DROVER_INSTANCE_IDLE);
    assert_int_equal (s_state (fx, "OLD-3"), DROVER_INSTANCE_UNKNOWN);
    assert_int_equal (s_state (fx, "THEIRS"), -1);
    assert_int_equal (s_told (fx, "OLD-1 -1>0 adopted"), 1);
    assert_int_equal (s_told (fx, "OLD-2 -1>2 adopted"), 1);
    drover_instance_view_t view;
    assert_true (drover_pool_lookup (fx->pool, "OLD-4", &view));
    assert_string_equal (view.type, "huge");
    assert_int_equal (view.procs, 0);
    assert_true (view.price == 0);
    assert_non_null (strstr (view.why, "unknown type 'huge'"));
    assert_true (drover_pool_lookup (fx->pool, "OLD-3", &view));
    assert_int_equal (view.behaviour, DROVER_IDLE_HOLD);
    s_plan_says (fx, 100, "ADMIN OLD-3 hold");
    assert_int_equal (s_said (fx, "ADMIN"), 1);
    //  Adopted capacity takes demand: a small task needs no create
    s_demand (fx, 2, GIB, "", 1, 200);
    assert_int_equal (s_plan (fx, 200), 0);
    //  Adopted, never registered: destroyed at the boot timeout; held: never
    assert_true (drover_pool_registered (fx->pool, "OLD-1", 300));
    s_plan_says (fx, 100 + 600000, "DESTROY OLD-4");
    assert_int_equal (s_said (fx, "DESTROY"), 1);
}

//  Known instances a list (begun after their create finished) lacks are
//  forgotten: vanished, and that ends a quota backoff
static void
test_vanished (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    s_pool_demanding (fx, 2);
    assert_int_equal (s_said (fx, "CREATE"), 2);
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_OK, "", 100);
    s_plan_says (fx, 60000, "LIST");            //  a list begins, P-2 still creating
    drover_pool_created (fx->pool, "P-2", DROVER_POOLOP_OK, "", 60050);
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, NULL, 0, "", 60100);
    assert_int_equal (s_state (fx, "P-1"), -1);
    assert_int_equal (s_told (fx, "P-1 1>-1 vanished"), 1);
    assert_int_equal (s_state (fx, "P-2"), DROVER_INSTANCE_BOOTING);
    //  A failed list concludes nothing
    s_plan (fx, 120000);
    drover_pool_listed (fx->pool, DROVER_POOLOP_FAILED, NULL, 0, "no", 120100);
    assert_int_equal (s_state (fx, "P-2"), DROVER_INSTANCE_BOOTING);
    //  Quota error, then P-2 vanishes: creates at once
    s_demand (fx, 2, GIB, "", 3, 120200);
    s_plan (fx, 120200);
    drover_pool_created (fx->pool, "P-3", DROVER_POOLOP_QUOTA, "", 120200);
    drover_pool_created (fx->pool, "P-4", DROVER_POOLOP_QUOTA, "", 120200);
    assert_int_equal (s_plan (fx, 120300), 0);
    s_plan (fx, 180000);
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, NULL, 0, "", 180000);
    assert_int_equal (s_told (fx, "P-2 1>-1 vanished"), 1);
    s_plan (fx, 180000);
    assert_int_equal (s_said (fx, "CREATE"), 3);
}

//  The operator's kill: shut down and destroyed at once
static void
test_operator_kill (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    s_pool_one_up (fx);
    assert_int_equal (drover_pool_kill (fx->pool, "nobody", 10), -1);
    assert_int_equal (drover_pool_kill (fx->pool, "P-1", 10), 0);
    assert_int_equal (s_told (fx, "P-1 3>4 destroyed by operator"), 1);
    assert_int_equal (drover_pool_next_deadline (fx->pool, 10), 10);
    s_plan_says (fx, 10, "DESTROY P-1");
    assert_int_equal (s_said (fx, "RETIRE"), 0);
    drover_instance_view_t view;
    assert_true (drover_pool_lookup (fx->pool, "P-1", &view));
    assert_string_equal (view.why, "destroyed by operator");
    //  Its worker goes: still shutdown, no probe timeout
    drover_pool_lost (fx->pool, "P-1", "silent", 20);
    assert_int_equal (s_state (fx, "P-1"), DROVER_INSTANCE_SHUTDOWN);
}

//  A shape no type fits never creates anything; warned of once
static void
test_unfittable_shape_never_creates (void **state)
{
    fixture_t *fx = (fixture_t *) *state;
    s_pool (fx);
    s_start (fx, 0);
    drover_pooldemand_t demand [2] = { { 64, GIB, "", 5 }, { 1, GIB, "gpu=2", 3 } };
    drover_pool_set_load (fx->pool, demand, 2, NULL, 0, 0);
    assert_int_equal (s_plan (fx, 0), 0);
    assert_int_equal (s_told (fx, "WARN - no instance type fits 64 procs"), 1);
    assert_int_equal (s_told (fx, "labels 'gpu=2'"), 1);
    drover_pool_set_load (fx->pool, demand, 2, NULL, 0, 10);
    assert_int_equal (s_plan (fx, 10), 0);
    assert_int_equal (s_told (fx, "WARN"), 2);
    assert_true (drover_pool_next_deadline (fx->pool, 10) > 10);
}

//  Names of states and behaviours, and parsing behaviours
static void
test_names (void **state)
{
    assert_string_equal (drover_instance_state_name (DROVER_INSTANCE_UNKNOWN), "unknown");
    assert_string_equal (drover_instance_state_name (DROVER_INSTANCE_SHUTDOWN), "shutdown");
    assert_string_equal (drover_idle_behaviour_name (DROVER_IDLE_DRAIN), "drain");
    drover_idle_behaviour_t behaviour = DROVER_IDLE_RUN;
    assert_int_equal (drover_idle_behaviour_parse ("hold", &behaviour), 0);
    assert_int_equal (behaviour, DROVER_IDLE_HOLD);
    assert_int_equal (drover_idle_behaviour_parse ("sleep", &behaviour), -1);
    assert_int_equal (drover_idle_behaviour_parse (NULL, &behaviour), -1);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_cheapest_type_chosen, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_packs_shapes_into_planned_instance,
                                         s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_booting_capacity_prevents_second_create,
                                         s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_max_creates_per_pass, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_max_instances, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_max_price, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_min_instances, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_token_bucket, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_quota_backoff_and_its_early_end,
                                         s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_rate_limited_backoff, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_consecutive_failures_warn_and_back_off,
                                         s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_boot_timeout, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_idle_timeout_retires_then_destroys,
                                         s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_retired_destroyed_then_gone, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_probe_timeout, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_shutdown_timeout, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_destroy_failed_and_unlisted_is_gone,
                                         s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_drain_and_hold, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_adoption, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_vanished, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_operator_kill, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_unfittable_shape_never_creates,
                                         s_setup, s_teardown),
        cmocka_unit_test (test_names),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
