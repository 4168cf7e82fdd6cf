/*  =========================================================================
    drover_benchmark_pool - `drover bench`'s phase (k) pool: what the
    elastic pool's decisions cost. pool_plan_us_i<I>_t<T>: usec per
    drover_pool_plan with I registered instances (nine in ten reported
    busy by the scheduler, one in ten not reported yet, so capacity still
    coming) and a load report of T waiting tasks in ten shapes, the pool
    at max-instances so that every pass fits the whole demand and ends
    with nothing to do, as a full pool does while demand waits. The class
    is driven alone with a fake clock (no broker): the figure is the
    decision's cost, not the actor's. pool_first_task_ms: a real broker
    with the local driver and an empty pool, one task submitted: msec
    until it has run on the instance the pool started for it.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_benchmark.h"
#include "drover_pool.h"

#define S_SHAPES        10          //  demand shapes of the load report
#define S_NOW           1000        //  the fake clock of every pass, msec
#define S_GIB           ((uint64_t) 1 << 30)

//  Count the actions a pass says
static void
s_count_action (const drover_poolaction_t *action, void *arg)
{
    (*(size_t *) arg)++;
}

//  Settings: three types, I instances at most (and at least, to make them)
static void
s_pool_config (drover_poolconfig_t *config, uint32_t instances)
{
    memset (config, 0, sizeof *config);
    config->name = "bench";
    config->max_instances = instances;
    config->min_instances = instances;
    config->max_creates = instances;
    config->ops_per_second = 1000000;
    config->boot_timeout = 600000;
    config->idle_timeout = 600000;
    config->probe_timeout = 600000;
    config->shutdown_timeout = 10000;
    config->quota_backoff = 60000;
    config->rate_backoff = 10000;
    config->warn_failures = 3;
    config->list_interval = 600000;
    config->ntypes = 3;
    config->types [0] = (drover_pooltype_t) { "small", 2, 4 * S_GIB, "", 0.10, NULL };
    config->types [1] = (drover_pooltype_t) { "medium", 8, 32 * S_GIB, "", 0.40, NULL };
    config->types [2] = (drover_pooltype_t) { "gpu", 32, 128 * S_GIB, "gpu=1", 2.00, NULL };
}

//  Time one size: returns usec per plan, or -1 (said why)
static double
s_plan_cost (drover_benchmark_t *self, uint32_t instances, uint32_t tasks)
{
    drover_poolconfig_t config;
    s_pool_config (&config, instances);
    drover_pool_t *pool = drover_pool_new (&config, "B-");
    size_t said = 0;
    drover_pool_plan (pool, 0, s_count_action, &said);        //  the first list
    drover_pool_listed (pool, DROVER_POOLOP_OK, NULL, 0, "", 0);
    drover_pool_plan (pool, 0, s_count_action, &said);        //  min-instances: creates
    drover_poolload_t *loads =
        (drover_poolload_t *) zmalloc (instances * sizeof (drover_poolload_t));
    char (*ids) [16] = zmalloc (instances * sizeof *ids);
    for (uint32_t index = 0; index < instances; index++) {
        snprintf (ids [index], sizeof ids [index], "B-%u", index + 1);
        drover_pool_created (pool, ids [index], DROVER_POOLOP_OK, "", 0);
        drover_pool_registered (pool, ids [index], 0);
        loads [index] = (drover_poolload_t) { ids [index], 1, 2, S_GIB, index + 1 };
    }
    //  Ten shapes of 1..8 procs, one with a label, T tasks in all
    drover_pooldemand_t demand [S_SHAPES];
    for (uint32_t index = 0; index < S_SHAPES; index++)
        demand [index] = (drover_pooldemand_t) {
            1 + index % 8, (uint64_t) (1 + index) * S_GIB / 2, index == 9 ? "gpu=1" : "",
            tasks / S_SHAPES + (index < tasks % S_SHAPES), "" };
    size_t reported = instances - instances / 10;
    drover_pool_set_load (pool, demand, S_SHAPES, loads, reported, S_NOW);
    double result = -1;
    said = 0;
    drover_pool_plan (pool, S_NOW, s_count_action, &said);
    if (drover_pool_size (pool) != instances || said != 0)
        fprintf (stderr, "drover bench: pool: %zu instances of %u, a pass said %zu actions\n",
                 drover_pool_size (pool), instances, said);
    else {
        //  Passes for --pool-msec, at least 20
        int64_t budget = self->opts.pool_msec * 1000;
        int64_t started = zclock_usecs ();
        long long passes = 0;
        while (passes < 20 || zclock_usecs () - started < budget) {
            drover_pool_plan (pool, S_NOW, s_count_action, &said);
            passes++;
        }
        result = (double) (zclock_usecs () - started) / passes;
        if (said != 0) {
            fprintf (stderr, "drover bench: pool: a timed pass said %zu actions\n", said);
            result = -1;
        }
    }
    free (ids);
    free (loads);
    drover_pool_destroy (&pool);
    return result;
}

//  Wait until the broker lists no worker: the pool's instance was
//  destroyed and its worker process has left (none outlives the phase),
//  msec at most. Returns 0, or -1.
static int
s_no_worker (drover_benchmark_t *self, drover_client_t *client, int64_t msec)
{
    int64_t deadline = zclock_mono () + msec;
    while (!zsys_interrupted) {
        drover_workers_t *workers = drover_client_workers (client);
        if (!workers)
            return drover_cli_error (client, "pool"), -1;
        uint32_t rows = 0;          //  workers up (the table lists gone ones too)
        for (size_t index = 0; index < drover_workers_size (workers); index++)
            rows += drover_workers_row (workers, index)->state == DROVER_WORKER_UP;
        drover_workers_destroy (&workers);
        if (rows == 0)
            return 0;
        if (zclock_mono () > deadline) {
            fprintf (stderr, "drover bench: pool: %u workers still there after %" PRId64
                     " msec\n", rows, msec);
            return -1;
        }
        zclock_sleep (50);          //  polling the worker table, not settling
    }
    return -1;
}

//  pool_first_task_ms: a broker with the local driver and an empty pool
//  (min-instances 0), one task submitted: msec until it has run, an
//  instance started for it (the median of --pool-rounds, the pool empty
//  again before each: idle-timeout 200 msec)
static int
s_first_task (drover_benchmark_t *self)
{
    static const char *settings [] = {
        "pool/driver=local", "pool/min-instances=0", "pool/idle-timeout=200",
        "pool/type/small/procs=1", "pool/type/small/memory=1G", "pool/type/small/price=0.10",
        NULL };
    if (drover_benchmark_broker_start (self, settings))
        return -1;
    drover_benchmark_tally_t tally = { 0 };
    drover_client_t *client = drover_benchmark_client (self, &tally);
    drover_client_set_timeout (client, 60000);      //  an instance boots meanwhile
    drover_submit_t *submit = drover_benchmark_submit_new (false, DROVER_SUBMIT_NOTIFY);
    long long rounds = self->opts.pool_rounds;
    int64_t *samples = (int64_t *) zmalloc (rounds * sizeof (int64_t));
    int rc = s_no_worker (self, client, 10000);
    for (long long round = 0; rc == 0 && round < rounds; round++) {
        tally.finished = tally.succeeded = 0;       //  progress counts this round
        samples [round] = drover_benchmark_run_tasks (self, client, &tally, submit, 1, "pool");
        //  The instance retires after its idle timeout: wait until its
        //  worker is gone
        rc = samples [round] < 0 || s_no_worker (self, client, 60000)? -1: 0;
    }
    if (rc == 0) {
        qsort (samples, rounds, sizeof (int64_t), drover_benchmark_compare_usec);
        drover_benchmark_figure (self, "pool_first_task_ms", samples [rounds / 2] / 1000.0,
                                 "msec");
    }
    free (samples);
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    return rc;
}

//  (k) the pool's decision cost at three sizes, and its first task
int
drover_benchmark_phase_pool (drover_benchmark_t *self)
{
    static const struct {
        uint32_t instances;     //  registered instances
        uint32_t tasks;         //  tasks waiting
    } sizes [] = { { 100, 10000 }, { 100, 100000 }, { 1000, 100000 } };
    for (size_t index = 0; index < sizeof sizes / sizeof sizes [0]; index++) {
        double usec = s_plan_cost (self, sizes [index].instances, sizes [index].tasks);
        if (usec < 0)
            return -1;
        char name [40];
        snprintf (name, sizeof name, "pool_plan_us_i%u_t%u", sizes [index].instances,
                  sizes [index].tasks);
        drover_benchmark_figure (self, name, usec, "usec");
    }
    return s_first_task (self);
}
