/*  =========================================================================
    testutil_poolplan - an elastic pool driven with a fake clock, and what
    it said (test_drover_pool_create, _lifecycle): testutil_poolplan.h
    =========================================================================
*/

#include "testutil_poolplan.h"

//  Record an action as "KIND instance type behaviour"
static void
s_on_action (const drover_poolaction_t *action, void *arg)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) arg;
    const char *kinds [] = { "CREATE", "DESTROY", "TAG", "LIST", "RETIRE", "ADMIN", "PROBE" };
    char *line = NULL;
    if (action->kind == DROVER_POOL_LIST)
        line = zsys_sprintf ("LIST");
    else
    if (action->kind == DROVER_POOL_CREATE)
        line = zsys_sprintf ("CREATE %s %s %s", action->instance, action->type->name,
                             drover_idle_behaviour_name (action->behaviour));
    else
    if (action->kind == DROVER_POOL_TAG || action->kind == DROVER_POOL_ADMIN)
        line = zsys_sprintf ("%s %s %s%s%s", kinds [action->kind], action->instance,
                             drover_idle_behaviour_name (action->behaviour),
                             action->probing ? " probing" : "", action->probed ? " probed" : "");
    else
        line = zsys_sprintf ("%s %s", kinds [action->kind], action->instance);
    zlistx_add_end (fx->actions, line);
}

//  Record a note as "instance from>to why" or "WARN why"
static void
s_on_note (const drover_poolnote_t *note, void *arg)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) arg;
    char *line = note->warning
        ? zsys_sprintf ("WARN %s %s", note->instance ? note->instance : "-", note->why)
        : zsys_sprintf ("%s%s %d>%d %s", note->probe ? "PROBE " : "", note->instance,
                        note->from, note->to, note->why);
    zlistx_add_end (fx->notes, line);
}

//  Free a string of a list
static void
s_string_destroy (void **item_p)
{
    zstr_free ((char **) item_p);
}

//  Settings with Arvados' defaults and three types
int
testutil_poolplan_setup (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) zmalloc (sizeof (testutil_poolplan_t));
    drover_poolconfig_t *config = &fx->config;
    testutil_pool_defaults (config);
    config->max_instances = 64;
    config->ntypes = 3;
    config->types [0] = (drover_pooltype_t) { "big", 16, 64 * TESTUTIL_GIB, "gpu=1\nzone=a", 1.20, NULL };
    config->types [1] = (drover_pooltype_t) { "medium", 4, 8 * TESTUTIL_GIB, "", 0.10, NULL };
    config->types [2] = (drover_pooltype_t) { "small", 2, 4 * TESTUTIL_GIB, "", 0.10, NULL };
    fx->actions = zlistx_new ();
    zlistx_set_destructor (fx->actions, s_string_destroy);
    fx->notes = zlistx_new ();
    zlistx_set_destructor (fx->notes, s_string_destroy);
    *state = fx;
    return 0;
}

//  Destroy the pool and what it said
int
testutil_poolplan_teardown (void **state)
{
    testutil_poolplan_t *fx = (testutil_poolplan_t *) *state;
    drover_pool_destroy (&fx->pool);
    assert_null (fx->pool);
    drover_pool_destroy (&fx->pool);        //  harmless twice
    zlistx_destroy (&fx->actions);
    zlistx_destroy (&fx->notes);
    free (fx);
    return 0;
}

//  Make the pool from the fixture's settings (tests change them first)
drover_pool_t *
testutil_poolplan_pool (testutil_poolplan_t *fx)
{
    fx->pool = drover_pool_new (&fx->config, "P-");
    drover_pool_set_notify (fx->pool, s_on_note, fx);
    return fx->pool;
}

//  Plan at now, keeping only what this plan says; returns how many actions
size_t
testutil_poolplan_plan (testutil_poolplan_t *fx, uint64_t now)
{
    zlistx_purge (fx->actions);
    drover_pool_plan (fx->pool, now, s_on_action, fx);
    return zlistx_size (fx->actions);
}

//  Count the actions of the last plan starting with prefix
size_t
testutil_poolplan_said (testutil_poolplan_t *fx, const char *prefix)
{
    size_t count = 0;
    for (char *line = (char *) zlistx_first (fx->actions); line;
         line = (char *) zlistx_next (fx->actions))
        if (strncmp (line, prefix, strlen (prefix)) == 0)
            count++;
    return count;
}

//  Count the notes containing text
size_t
testutil_poolplan_told (testutil_poolplan_t *fx, const char *text)
{
    size_t count = 0;
    for (char *line = (char *) zlistx_first (fx->notes); line;
         line = (char *) zlistx_next (fx->notes))
        if (strstr (line, text))
            count++;
    return count;
}

//  Plan at now and assert it says exactly one action starting with prefix
void
testutil_poolplan_plan_says (testutil_poolplan_t *fx, uint64_t now, const char *prefix)
{
    testutil_poolplan_plan (fx, now);
    assert_int_equal (testutil_poolplan_said (fx, prefix), 1);
}

//  The first plan lists; an empty list lets creates go
void
testutil_poolplan_start (testutil_poolplan_t *fx, uint64_t now)
{
    testutil_poolplan_plan_says (fx, now, "LIST");
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, NULL, 0, "", now);
}

//  Set demand of one shape, no workers
void
testutil_poolplan_demand (testutil_poolplan_t *fx, uint32_t procs, uint64_t mem,
                          const char *labels, uint32_t count,
          uint64_t now)
{
    drover_pooldemand_t demand = { procs, mem, labels, count, "" };
    drover_poolload_t load = { fx->busy, 1, 2, TESTUTIL_GIB, 42 };
    drover_pool_set_load (fx->pool, &demand, 1, &load, fx->busy ? 1 : 0, now);
}

//  Report one worker's load, no demand
void
testutil_poolplan_worker_load (testutil_poolplan_t *fx, const char *id, uint32_t tasks,
                               uint64_t now)
{
    drover_poolload_t load = { id, tasks, tasks, tasks * TESTUTIL_GIB, tasks ? 42 : 0 };
    drover_pool_set_load (fx->pool, NULL, 0, &load, 1, now);
}

//  Return an instance's state
int
testutil_poolplan_state (testutil_poolplan_t *fx, const char *id)
{
    drover_instance_view_t view;
    if (!drover_pool_lookup (fx->pool, id, &view))
        return -1;
    return view.state;
}

//  Create P-1 and bring it up, idle
void
testutil_poolplan_one_up (testutil_poolplan_t *fx, uint64_t now)
{
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", 1, now);
    testutil_poolplan_plan_says (fx, now, "CREATE P-1 small run");
    drover_pool_created (fx->pool, "P-1", DROVER_POOLOP_OK, "", now);
    assert_true (drover_pool_registered (fx->pool, "P-1", now));
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_IDLE);
    testutil_poolplan_worker_load (fx, "P-1", 1, now);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), DROVER_INSTANCE_RUNNING);
    fx->busy = "P-1";               //  reported busy from now on
}

//  Make the pool, start it and bring P-1 up (testutil_poolplan_one_up), all at 0
void
testutil_poolplan_pool_one_up (testutil_poolplan_t *fx)
{
    testutil_poolplan_pool (fx);
    testutil_poolplan_start (fx, 0);
    testutil_poolplan_one_up (fx, 0);
}

//  Make the pool, start it, demand count small tasks (2 procs, 1 GiB) and
//  plan, all at 0
void
testutil_poolplan_pool_demanding (testutil_poolplan_t *fx, uint32_t count)
{
    testutil_poolplan_pool (fx);
    testutil_poolplan_start (fx, 0);
    testutil_poolplan_demand (fx, 2, TESTUTIL_GIB, "", count, 0);
    testutil_poolplan_plan (fx, 0);
}

//  A LIST planned at plan_at answers at listed_at without P-1 (destroyed):
//  P-1 is gone, and the pool tells so
void
testutil_poolplan_listed_without_p1 (testutil_poolplan_t *fx, uint64_t plan_at, uint64_t listed_at)
{
    testutil_poolplan_plan_says (fx, plan_at, "LIST");
    drover_pool_listed (fx->pool, DROVER_POOLOP_OK, NULL, 0, "", listed_at);
    assert_int_equal (testutil_poolplan_state (fx, "P-1"), -1);
    assert_int_equal (testutil_poolplan_told (fx, "P-1 4>-1 gone"), 1);
}

