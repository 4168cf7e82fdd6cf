/*  =========================================================================
    test_drover_poolwire - the pool on the wire, with a real drover_pool_t
    and a fake clock: the POOL TABLE built from it (summary from the
    counts and the settings, one row per instance, times turned to wall
    clock, 0 kept as never) encodes and reads back; POOL ADMIN holds,
    drains, runs and destroys, and answers 404, 410 and 400 where the
    pool cannot; without a pool, a table that says so and ERROR 503
    =========================================================================
*/

#include "testutil_pool.h"
#include "drover_pool.h"
#include "drover_poolwire.h"

#define GIB     ((uint64_t) 1 << 30)
#define WALL    ((int64_t) 1795498600000)  //  wall msec minus the fake clock's

//  Do nothing with an action (the test drives the pool's inputs itself)
static void
s_ignore (const drover_poolaction_t *action, void *arg)
{
    if (action->kind == DROVER_POOL_CREATE)
        (*(int *) arg)++;
}

//  Settings: one type, at most 3 instances and 0.5 per hour
static void
s_config (drover_poolconfig_t *config)
{
    testutil_pool_defaults (config);
    config->driver = "local";
    config->max_instances = 3;
    config->max_price = 0.5;
    config->ntypes = 1;
    config->types [0] = (drover_pooltype_t) { "small", 2, 4 * GIB, "", 0.10, NULL };
}

//  A pool that listed nothing and has two tasks of 2 procs waiting: it
//  plans two instances, P-1 and P-2, created at 1000; P-1 registers at 2000
static drover_pool_t *
s_pool (drover_poolconfig_t *config)
{
    s_config (config);
    drover_pool_t *pool = drover_pool_new (config, "P-");
    int creates = 0;
    drover_pool_plan (pool, 1000, s_ignore, &creates);
    drover_pool_listed (pool, DROVER_POOLOP_OK, NULL, 0, "", 1000);
    drover_pooldemand_t demand = { 2, GIB, "", 2, "" };
    drover_pool_set_load (pool, &demand, 1, NULL, 0, 1000);
    drover_pool_plan (pool, 1000, s_ignore, &creates);
    assert_int_equal (creates, 2);
    drover_pool_created (pool, "P-1", DROVER_POOLOP_OK, "", 1000);
    drover_pool_created (pool, "P-2", DROVER_POOLOP_OK, "", 1000);
    assert_true (drover_pool_registered (pool, "P-1", 2000));
    return pool;
}

//  A POOL LIST or POOL ADMIN request
static drover_msg_t *
s_request (int id, const char *instance, int action)
{
    drover_msg_t *request = drover_msg_new (id);
    request->seq = 42;
    if (instance)
        snprintf (request->worker, sizeof request->worker, "%s", instance);
    request->admin = (uint8_t) action;
    return request;
}

//  Encode a message and decode it again (asserting both work)
static drover_msg_t *
s_over_the_wire (drover_msg_t *msg)
{
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    drover_msg_t *copy = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    zframe_destroy (&frame);
    return copy;
}

//  Return the row of instance in a table, or fail
static const drover_pool_row_t *
s_row (const drover_msg_t *table, const char *instance)
{
    for (uint32_t index = 0; index < table->nrows; index++)
        if (streq (table->pool_rows [index].id, instance))
            return &table->pool_rows [index];
    fail_msg ("no row for %s", instance);
    return NULL;
}

//  Apply an admin, asserting its code; returns the reason (caller frees)
static char *
s_admin (drover_pool_t *pool, const char *instance, int action, uint64_t now, int code)
{
    drover_msg_t *request = s_request (DROVER_MSG_POOL_ADMIN, instance, action);
    char *reason = NULL;
    int rc = drover_poolwire_admin (pool, request, now, &reason);
    if (rc != code)
        fail_msg ("%s %s: %d (%s), expected %d", drover_pooladmin_name (action), instance, rc,
                  reason, code);
    assert_non_null (reason);
    drover_msg_t *reply = drover_poolwire_reply (request, rc, reason);
    assert_int_equal (reply->id, rc == 200? DROVER_MSG_OK: DROVER_MSG_ERROR);
    assert_int_equal (reply->code, rc);
    assert_int_equal (reply->seq, 42);
    drover_msg_destroy (&reply);
    drover_msg_destroy (&request);
    return reason;
}

//  The table says what the pool and its settings say: the summary from
//  the counts and the bounds, a row per instance in the pool's order,
//  times in wall-clock msec (0 stays never), and it goes over the wire
static void
test_table_from_a_pool (void **state)
{
    drover_poolconfig_t config;
    drover_pool_t *pool = s_pool (&config);
    drover_msg_t *request = s_request (DROVER_MSG_POOL_LIST, NULL, 0);
    drover_msg_t *built = drover_poolwire_table (pool, &config, request, WALL);
    drover_msg_t *table = s_over_the_wire (built);
    drover_msg_destroy (&built);

    assert_int_equal (table->id, DROVER_MSG_POOL_TABLE);
    assert_int_equal (table->seq, 42);
    assert_int_equal (table->pool.enabled, 1);
    assert_string_equal (table->pool.driver, "local");
    assert_int_equal (table->pool.live, 2);
    assert_int_equal (table->pool.max_instances, 3);
    assert_true (table->pool.price > 0.199 && table->pool.price < 0.201);
    assert_true (table->pool.max_price == 0.5);
    assert_true (table->pool.backoff_until == 0);
    assert_int_equal (table->pool.failures, 0);
    assert_int_equal (table->nrows, 2);
    assert_string_equal (table->pool_rows [0].id, "P-1");      //  oldest first
    const drover_pool_row_t *up = s_row (table, "P-1");
    assert_string_equal (up->type, "small");
    assert_true (up->price == 0.10);
    assert_int_equal (up->state, DROVER_INSTANCE_IDLE);
    assert_int_equal (up->behaviour, DROVER_POOLADMIN_RUN);
    assert_true (up->created == (uint64_t) WALL + 1000);
    assert_true (up->since == (uint64_t) WALL + 2000);
    assert_true (up->last_busy == 0);                   //  never busy: never, not WALL
    assert_true (up->last_task == 0);
    assert_int_equal (up->procs, 2);
    assert_true (up->mem == 4 * GIB);
    const drover_pool_row_t *booting = s_row (table, "P-2");
    assert_int_equal (booting->state, DROVER_INSTANCE_BOOTING);
    drover_msg_destroy (&table);

    //  Busy: the scheduler reports a task on P-1
    drover_poolload_t load = { "P-1", 1, 2, GIB, 77 };
    drover_pool_set_load (pool, NULL, 0, &load, 1, 5000);
    built = drover_poolwire_table (pool, &config, request, WALL);
    table = s_over_the_wire (built);
    drover_msg_destroy (&built);
    up = s_row (table, "P-1");
    assert_int_equal (up->state, DROVER_INSTANCE_RUNNING);
    assert_true (up->last_task == 77);
    assert_int_equal (up->tasks, 1);
    assert_int_equal (up->procs_used, 2);
    assert_true (up->mem_used == GIB);
    assert_true (up->last_busy == (uint64_t) WALL + 5000);
    drover_msg_destroy (&table);
    drover_msg_destroy (&request);
    drover_pool_destroy (&pool);
}

//  A failed create and a quota error show in the summary: the creates
//  failed in a row, and the backoff's end in wall clock
static void
test_table_shows_failures_and_quota_backoff (void **state)
{
    drover_poolconfig_t config;
    drover_pool_t *pool = s_pool (&config);
    drover_pooldemand_t demand = { 2, GIB, "", 3, "" };
    drover_pool_set_load (pool, &demand, 1, NULL, 0, 3000);
    int creates = 0;
    drover_pool_plan (pool, 3000, s_ignore, &creates);
    assert_int_equal (creates, 1);                      //  P-3: the third of at most 3
    drover_pool_created (pool, "P-3", DROVER_POOLOP_FAILED, "no room", 3000);
    drover_msg_t *request = s_request (DROVER_MSG_POOL_LIST, NULL, 0);
    drover_msg_t *table = drover_poolwire_table (pool, &config, request, WALL);
    assert_int_equal (table->pool.failures, 1);
    assert_true (table->pool.backoff_until == 0);
    drover_msg_destroy (&table);

    drover_pool_plan (pool, 4000, s_ignore, &creates);
    assert_int_equal (creates, 2);                      //  tried again
    drover_pool_created (pool, "P-4", DROVER_POOLOP_QUOTA, "quota", 4000);
    table = drover_poolwire_table (pool, &config, request, WALL);
    assert_true (table->pool.backoff_until == (uint64_t) WALL + 4000 + config.quota_backoff);
    drover_msg_destroy (&table);
    drover_msg_destroy (&request);
    drover_pool_destroy (&pool);
}

//  Hold, drain and run set the behaviour the table shows; destroy shuts
//  it down, and nothing more can be asked of it (410); an unknown id is
//  404, an action past destroy or another message 400
static void
test_admin_applied_to_a_pool (void **state)
{
    drover_poolconfig_t config;
    drover_pool_t *pool = s_pool (&config);
    drover_instance_view_t view;
    const int actions [] = { DROVER_POOLADMIN_HOLD, DROVER_POOLADMIN_DRAIN,
                             DROVER_POOLADMIN_RUN };
    for (int index = 0; index < 3; index++) {
        char *reason = s_admin (pool, "P-1", actions [index], 3000, 200);
        assert_string_equal (reason, drover_pooladmin_name (actions [index]));
        zstr_free (&reason);
        assert_true (drover_pool_lookup (pool, "P-1", &view));
        assert_int_equal (view.behaviour, actions [index]);
        drover_msg_t *request = s_request (DROVER_MSG_POOL_LIST, NULL, 0);
        drover_msg_t *table = drover_poolwire_table (pool, &config, request, WALL);
        assert_int_equal (s_row (table, "P-1")->behaviour, actions [index]);
        drover_msg_destroy (&table);
        drover_msg_destroy (&request);
    }
    char *reason = s_admin (pool, "P-9", DROVER_POOLADMIN_HOLD, 3000, 404);
    assert_non_null (strstr (reason, "P-9"));
    zstr_free (&reason);

    reason = s_admin (pool, "P-2", DROVER_POOLADMIN_DESTROY, 3000, 200);
    assert_string_equal (reason, "destroying");
    zstr_free (&reason);
    assert_true (drover_pool_lookup (pool, "P-2", &view));
    assert_int_equal (view.state, DROVER_INSTANCE_SHUTDOWN);
    for (int action = 0; action <= DROVER_POOLADMIN_MAX; action++) {
        reason = s_admin (pool, "P-2", action, 3100, 410);
        assert_non_null (strstr (reason, "shutting down"));
        zstr_free (&reason);
    }
    reason = s_admin (pool, "P-1", DROVER_POOLADMIN_MAX + 1, 3100, 400);
    zstr_free (&reason);
    drover_msg_t *list = s_request (DROVER_MSG_POOL_LIST, NULL, 0);
    assert_int_equal (drover_poolwire_admin (pool, list, 3100, &reason), 400);
    zstr_free (&reason);
    drover_msg_destroy (&list);
    assert_true (drover_pool_lookup (pool, "P-1", &view));
    assert_int_equal (view.state, DROVER_INSTANCE_IDLE);       //  untouched by the refusals
    drover_pool_destroy (&pool);
}

//  Without a pool: POOL LIST gets a table that says so (and encodes),
//  POOL ADMIN gets ERROR 503, anything else ERROR 415; seq echoed
static void
test_answers_without_a_pool (void **state)
{
    drover_msg_t *request = s_request (DROVER_MSG_POOL_LIST, NULL, 0);
    drover_msg_t *reply = drover_poolwire_none (request);
    drover_msg_t *table = s_over_the_wire (reply);
    assert_int_equal (table->id, DROVER_MSG_POOL_TABLE);
    assert_int_equal (table->seq, 42);
    assert_int_equal (table->pool.enabled, 0);
    assert_int_equal (table->nrows, 0);
    drover_msg_destroy (&table);
    drover_msg_destroy (&reply);
    drover_msg_destroy (&request);

    request = s_request (DROVER_MSG_POOL_ADMIN, "P-1", DROVER_POOLADMIN_DESTROY);
    reply = drover_poolwire_none (request);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_UNAVAILABLE);
    assert_int_equal (reply->seq, 42);
    assert_string_equal (reply->reason, "no pool configured");
    drover_msg_destroy (&reply);
    drover_msg_destroy (&request);

    request = s_request (DROVER_MSG_TASK_LIST, NULL, 0);
    reply = drover_poolwire_none (request);
    assert_int_equal (reply->id, DROVER_MSG_ERROR);
    assert_int_equal (reply->code, DROVER_CODE_UNEXPECTED);
    drover_msg_destroy (&reply);
    drover_msg_destroy (&request);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_table_from_a_pool),
        cmocka_unit_test (test_table_shows_failures_and_quota_backoff),
        cmocka_unit_test (test_admin_applied_to_a_pool),
        cmocka_unit_test (test_answers_without_a_pool),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
