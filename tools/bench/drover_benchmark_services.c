/*  =========================================================================
    drover_benchmark_services - `drover bench`'s phase (l) services: what
    the reconciler's decisions cost, and how stable rendezvous placement
    is. The class (drover_reconciler) is driven alone with a fake clock (no
    broker, no actor): the figures are the decisions' cost, not the
    messages'.

    services_term_us_w<W>_r<R>: usec per steady term with W workers and R
    replicas (R/100 services of 100 replicas, one in ten asking a label
    half the workers carry), every replica running: the gather (every
    worker's answer recorded), the delta and placement (compute, which
    finds nothing to do) and the commit. services_first_us_w<W>_r<R>: usec
    for the first placement of all R replicas on the W empty workers (a
    compute that starts every one; nothing committed, so each run is a
    first). The _ns_replica_ figures divide by R. Two sizes, W x R =
    100 x 1,000 and 1,000 x 10,000, show how each grows.

    rendezvous_moved_remove_pct, rendezvous_moved_add_pct: of 1,000 keys
    over 10 workers, the percent that move when one worker leaves (1/10
    expected, all of them its own) and when an eleventh joins (1/11
    expected, all to it).
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_benchmark.h"
#include "drover_reconciler.h"
#include "drover_defaults.h"
#include "drover_rendezvous.h"

#define S_PER_SERVICE   100         //  replicas per service
#define S_NOW           1000000     //  the fake clock's start, msec

//  The reconciler's settings for the bench: the defaults, room for R
static drover_serviceconfig_t
s_config (uint32_t replicas)
{
    drover_serviceconfig_t config = {
        .term = DROVER_DEFAULT_SERVICE_TERM,
        .gather_timeout = DROVER_DEFAULT_SERVICE_GATHER_TIMEOUT,
        .restart_delay = DROVER_DEFAULT_SERVICE_RESTART_DELAY,
        .max_restart_delay = DROVER_DEFAULT_SERVICE_MAX_RESTART_DELAY,
        .stable_after = DROVER_DEFAULT_SERVICE_STABLE_AFTER,
        .crash_warn = DROVER_DEFAULT_SERVICE_CRASH_WARN,
        .max_stop_percent = DROVER_DEFAULT_SERVICE_MAX_STOP_PERCENT,
        .max_services = replicas / S_PER_SERVICE + 1,
        .max_replicas = replicas
    };
    return config;
}

//  One size's cluster: a reconciler, its fleet, its running replicas
typedef struct {
    drover_reconciler_t *rec;    //  the class timed
    uint32_t workers;           //  W
    uint32_t replicas;          //  R
    char (*ids) [16];           //  worker ids
    drover_taskref_t **runs;    //  per worker: the tasks it runs
    size_t *nruns;              //  per worker: entries in runs
    uint64_t now;               //  the fake clock
    uint64_t term;              //  terms so far
} s_cluster_t;

//  Set up W workers (32 procs, 64 GiB; every other one labelled) and
//  R / 100 services defined, none running yet
static s_cluster_t *
s_cluster_new (uint32_t workers, uint32_t replicas)
{
    s_cluster_t *cluster = (s_cluster_t *) zmalloc (sizeof (s_cluster_t));
    drover_serviceconfig_t config = s_config (replicas);
    cluster->rec = drover_reconciler_new (&config);
    cluster->workers = workers;
    cluster->replicas = replicas;
    cluster->ids = zmalloc (workers * sizeof *cluster->ids);
    cluster->runs = (drover_taskref_t **) zmalloc (workers * sizeof (drover_taskref_t *));
    cluster->nruns = (size_t *) zmalloc (workers * sizeof (size_t));
    cluster->now = S_NOW;
    drover_fleet_worker_t *fleet =
        (drover_fleet_worker_t *) zmalloc (workers * sizeof (drover_fleet_worker_t));
    for (uint32_t index = 0; index < workers; index++) {
        snprintf (cluster->ids [index], sizeof cluster->ids [index], "node-%u", index);
        fleet [index] = (drover_fleet_worker_t) {
            cluster->ids [index], 32, 64ULL << 30, 0, 0, index % 2? "ssd=yes": "",
            DROVER_FLEET_USABLE, 0 };
    }
    drover_reconciler_set_fleet (cluster->rec, fleet, workers);
    free (fleet);
    for (uint32_t number = 0; number < replicas / S_PER_SERVICE; number++) {
        drover_service_row_t def;
        memset (&def, 0, sizeof def);
        snprintf (def.name, sizeof def.name, "svc-%u", number);
        def.replicas = S_PER_SERVICE;
        def.procs = 1;
        def.mem = 256ULL << 20;
        char label [] = "ssd=yes";
        if (number % 10 == 9) {
            def.labels [0] = label;
            def.nlabels = 1;
        }
        int rc = drover_reconciler_define (cluster->rec, &def, cluster->now);
        assert (rc == 0);
    }
    return cluster;
}

//  Free a cluster
static void
s_cluster_destroy (s_cluster_t **cluster_p)
{
    s_cluster_t *cluster = *cluster_p;
    for (uint32_t index = 0; index < cluster->workers; index++)
        free (cluster->runs [index]);
    free (cluster->runs);
    free (cluster->nruns);
    free (cluster->ids);
    drover_reconciler_destroy (&cluster->rec);
    free (cluster);
    *cluster_p = NULL;
}

//  One term: the gather (every worker answers), the computation, the
//  commit. Returns the changes it made.
static size_t
s_term (s_cluster_t *cluster, drover_changeset_t *set)
{
    cluster->now += DROVER_DEFAULT_SERVICE_TERM;
    drover_reconciler_gather_begin (cluster->rec, ++cluster->term, cluster->now);
    for (uint32_t index = 0; index < cluster->workers; index++)
        drover_reconciler_gathered (cluster->rec, cluster->ids [index], cluster->runs [index],
                                   cluster->nruns [index]);
    drover_reconciler_what_t what = { .kind = DROVER_RECONCILER_TERM };
    drover_reconciler_compute (cluster->rec, &what, cluster->now, set);
    drover_reconciler_commit (cluster->rec, set, cluster->now);
    return set->count;
}

//  Carry out a set's starts as assign would: each a task running on its
//  worker. Returns the replicas started.
static size_t
s_carry_out (s_cluster_t *cluster, const drover_changeset_t *set)
{
    size_t started = 0;
    for (size_t index = 0; index < set->count; index++) {
        const drover_planchange_t *change = &set->changes [index];
        if (change->kind != DROVER_CHANGE_START)
            continue;
        uint32_t worker = (uint32_t) strtoul (change->to + 5, NULL, 10);    //  "node-N"
        uint64_t task = 1000 + started++;
        drover_replica_report_t report = {
            task, change->service, change->slot, change->to, 1, DROVER_TASK_RUNNING,
            DROVER_END_NONE, "" };
        drover_reconciler_replica (cluster->rec, &report, cluster->now);
        cluster->runs [worker] = (drover_taskref_t *) realloc (cluster->runs [worker],
            (cluster->nruns [worker] + 1) * sizeof (drover_taskref_t));
        assert (cluster->runs [worker]);
        cluster->runs [worker][cluster->nruns [worker]++] = (drover_taskref_t) { task, 1 };
    }
    return started;
}

//  Time fn on a cluster for msec (at least 3 runs): usec per run
static double
s_time (s_cluster_t *cluster, long long msec, bool first, drover_changeset_t *set)
{
    int64_t started = zclock_usecs ();
    long long runs = 0;
    drover_reconciler_what_t what = { .kind = DROVER_RECONCILER_PASS };
    while (runs < 3 || zclock_usecs () - started < msec * 1000) {
        if (first)
            drover_reconciler_compute (cluster->rec, &what, cluster->now, set);
        else
            s_term (cluster, set);
        runs++;
    }
    return (double) (zclock_usecs () - started) / runs;
}

//  Record a size's four figures: usec per run and nsec per replica
static void
s_figures (drover_benchmark_t *self, const char *what, s_cluster_t *cluster, double usec)
{
    char name [40];
    snprintf (name, sizeof name, "services_%s_us_w%u_r%u", what, cluster->workers,
              cluster->replicas);
    drover_benchmark_figure (self, name, usec, "usec");
    snprintf (name, sizeof name, "services_%s_ns_replica_w%u_r%u", what, cluster->workers,
              cluster->replicas);
    drover_benchmark_figure (self, name, usec * 1000 / cluster->replicas, "nsec");
}

//  Time one size: the first placement, then the steady term. Returns 0,
//  or -1 (said why).
static int
s_size (drover_benchmark_t *self, uint32_t workers, uint32_t replicas)
{
    s_cluster_t *cluster = s_cluster_new (workers, replicas);
    drover_changeset_t set = { 0 };
    int rc = 0;
    //  The first placement: a pass over empty slots, never committed
    double first = s_time (cluster, self->opts.services_msec, true, &set);
    if (set.count != replicas) {
        fprintf (stderr, "drover bench: services: the first placement started %zu of %u\n",
                 set.count, replicas);
        rc = -1;
    }
    //  Place them for real, then time terms that find nothing to do
    if (rc == 0) {
        s_term (cluster, &set);
        s_carry_out (cluster, &set);
        if (s_term (cluster, &set) != 0) {
            fprintf (stderr, "drover bench: services: a steady term made %zu changes\n",
                     set.count);
            rc = -1;
        }
    }
    if (rc == 0) {
        double term = s_time (cluster, self->opts.services_msec, false, &set);
        if (set.count || set.after.running != replicas) {
            fprintf (stderr, "drover bench: services: a timed term made %zu changes, "
                     "%u running\n", set.count, set.after.running);
            rc = -1;
        }
        else {
            s_figures (self, "term", cluster, term);
            s_figures (self, "first", cluster, first);
        }
    }
    drover_changeset_reset (&set);
    s_cluster_destroy (&cluster);
    return rc;
}

//  The best of 10 or 11 workers w0.. for a key (skip: a worker left out)
static uint32_t
s_best (const char *key, uint32_t count, uint32_t skip)
{
    uint64_t hashes [11];
    const char *ids [11];
    char names [11][8];
    uint32_t numbers [11];
    uint32_t used = 0;
    for (uint32_t number = 0; number < count; number++) {
        if (number == skip)
            continue;
        snprintf (names [used], sizeof names [used], "w%u", number);
        ids [used] = names [used];
        hashes [used] = drover_rendezvous_hash (names [used], strlen (names [used]));
        numbers [used++] = number;
    }
    long best = drover_rendezvous_best (drover_rendezvous_hash (key, strlen (key)), hashes,
                                        used, ids, NULL, NULL);
    return numbers [best];
}

//  The rendezvous figures: 1,000 keys over 10 workers, one leaves, one
//  joins. Returns 0, or -1 if a key moved where it should not.
static int
s_rendezvous (drover_benchmark_t *self)
{
    uint32_t removed = 0, added = 0, wrong = 0;
    for (uint32_t number = 0; number < 1000; number++) {
        char key [32];
        snprintf (key, sizeof key, "key-%u", number);
        uint32_t before = s_best (key, 10, UINT32_MAX);
        uint32_t left = s_best (key, 10, 3);
        uint32_t joined = s_best (key, 11, UINT32_MAX);
        removed += left != before;
        wrong += left != before && before != 3;
        added += joined != before;
        wrong += joined != before && joined != 10;
    }
    if (wrong) {
        fprintf (stderr, "drover bench: services: %u keys moved between two workers that "
                 "stayed\n", wrong);
        return -1;
    }
    drover_benchmark_figure (self, "rendezvous_moved_remove_pct", removed / 10.0, "%");
    drover_benchmark_figure (self, "rendezvous_moved_add_pct", added / 10.0, "%");
    return 0;
}

//  (l) the reconciler's term cost at two sizes, and rendezvous stability
int
drover_benchmark_phase_services (drover_benchmark_t *self)
{
    if (s_size (self, 100, 1000) || s_size (self, 1000, 10000))
        return -1;
    return s_rendezvous (self);
}
