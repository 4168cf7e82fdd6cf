/*  =========================================================================
    drover_benchmark_durable - `drover bench`'s phases about the state the
    broker keeps on disk (broker/durability, broker/state-dir):

    (h) durable   acknowledged submits/s with durability full (every TASK
                  ACCEPTED sent once its task is committed and fsync'd),
                  then the same with durability off, each on a fresh
                  broker; then the no-op end-to-end throughput of (a) on
                  each, and full as a percentage of off; with --postgres,
                  the same two figures (durability full) on the postgresql
                  backend, in the same run, beside SQLite's;
    (i) restart   N tasks queued with durability full and no workers; the
                  broker's RSS; kill -9; the state directory's size (the
                  database and its WAL as the crash left them); the broker
                  started again on the same directory, timed from its start
                  to its first answer (it reads no peer before it has
                  loaded its state); its RSS then and the tasks it lists as
                  queued; a clean stop and the directory's size again (the
                  WAL checkpointed into the database by SQLite on close);
                  then the floor: a bare read, with SQLite, of the same rows
                  and columns the broker loads from the same file, by the
                  same queries, each value read out (restart_read_floor_ms),
                  and the restart as a multiple of it (restart_vs_floor);
                  and the read of every column of those rows by one query,
                  as loads before state format 7 did (restart_read_wide_ms);
                  SQLite's quick_check of the file alone, which the broker
                  runs beside its load (restart_check_floor_ms), and the
                  restart as a multiple of the longer of the two floors
                  (restart_vs_checked_floor: both at once, on two cores);
                  the least a restart of this design does, run for real
                  (restart_load_floor_ms, its multiple of the read
                  restart_load_floor_vs_read, and the restart's multiple of
                  it restart_vs_load_floor); and the CPU the broker used to
                  start (restart_cpu_ms, all threads). The floors are in
                  drover_benchmark_restartfloor.c.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_benchmark.h"
#include <dirent.h>
#include <sys/stat.h>

//  The settings of a broker of each durability
static const char *s_full [] = { "broker/durability=full", NULL };
static const char *s_off [] = { "broker/durability=off", NULL };


//  ---------------------------------------------------------------------
//  (h) durable submits and no-op throughput, full beside off

//  Measure opts.submits acknowledged submits on the current broker, no
//  workers. Returns submits/s, or -1.
static double
s_submit_rate (drover_benchmark_t *self, const char *phase)
{
    drover_benchmark_tally_t tally = { 0 };
    drover_client_t *client = drover_benchmark_client (self, &tally);
    drover_submit_t *submit = drover_benchmark_submit_new (false, 0);
    int rc = drover_client_set_window (client, (uint32_t) self->opts.window);
    int64_t elapsed = rc? -1: drover_benchmark_submit_many (self, client, &tally, submit,
                                                             self->opts.submits, phase);
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    return elapsed < 0? -1: self->opts.submits * 1e6 / (elapsed > 0? elapsed: 1);
}

//  Run measure on a fresh broker with settings, stopping it after.
//  Returns what measure returned, or -1.
static double
s_on_broker (drover_benchmark_t *self, const char **settings,
             double (*measure) (drover_benchmark_t *, const char *), const char *phase)
{
    fprintf (stderr, "drover bench: %s\n", phase);
    double rate = -1;
    if (drover_benchmark_broker_start (self, settings) == 0)
        rate = measure (self, phase);
    drover_benchmark_broker_stop (self);
    return rate;
}

//  Run measure on a fresh broker keeping its state, durability full, in a
//  fresh schema of the --postgres database. Returns what measure
//  returned, or -1.
static double
s_on_postgres (drover_benchmark_t *self,
               double (*measure) (drover_benchmark_t *, const char *), const char *phase)
{
    char *uri = drover_benchmark_pg_fresh (self);
    if (!uri)
        return -1;
    char *state = zsys_sprintf ("broker/state-dir=%s", uri);
    const char *settings [] = { "broker/durability=full", state, NULL };
    double rate = s_on_broker (self, settings, measure, phase);
    drover_benchmark_pg_drop (self);
    zstr_free (&state);
    zstr_free (&uri);
    return rate;
}

//  Durable acknowledged submits and no-op throughput on the postgresql
//  backend, beside SQLite's (submit_sqlite, noop_sqlite)
static int
s_durable_postgres (drover_benchmark_t *self, double submit_sqlite, double noop_sqlite)
{
    if (drover_benchmark_pg_open (self)) {
        drover_benchmark_pg_close (self);
        return -1;
    }
    double submit = s_on_postgres (self, s_submit_rate, "durable: submit postgresql");
    double noop = submit < 0? -1:
                  s_on_postgres (self, drover_benchmark_noop_rate, "durable: noop postgresql");
    drover_benchmark_pg_close (self);
    if (noop <= 0)
        return -1;
    drover_benchmark_figure (self, "durable_submit_rate_pg", submit, "tasks/s");
    drover_benchmark_figure (self, "noop_rate_pg", noop, "tasks/s");
    drover_benchmark_figure (self, "submit_pg_vs_sqlite_pct",
                             100 * submit / submit_sqlite, "%");
    drover_benchmark_figure (self, "noop_pg_vs_sqlite_pct", 100 * noop / noop_sqlite, "%");
    return 0;
}

//  Durable acknowledged submits and no-op throughput, full then off (and
//  on PostgreSQL with --postgres)
int
drover_benchmark_phase_durable (drover_benchmark_t *self)
{
    double submit_full = s_on_broker (self, s_full, s_submit_rate, "durable: submit full");
    double submit_off = submit_full < 0? -1:
                        s_on_broker (self, s_off, s_submit_rate, "durable: submit off");
    if (submit_off < 0)
        return -1;
    drover_benchmark_figure (self, "durable_submit_rate", submit_full, "tasks/s");
    drover_benchmark_figure (self, "durable_submit_rate_off", submit_off, "tasks/s");
    double noop_full = s_on_broker (self, s_full, drover_benchmark_noop_rate, "durable: noop full");
    double noop_off = noop_full < 0? -1:
                      s_on_broker (self, s_off, drover_benchmark_noop_rate, "durable: noop off");
    if (noop_off <= 0)
        return -1;
    drover_benchmark_figure (self, "noop_throughput_full", noop_full, "tasks/s");
    drover_benchmark_figure (self, "noop_throughput_off", noop_off, "tasks/s");
    drover_benchmark_figure (self, "noop_full_vs_off_pct", 100 * noop_full / noop_off, "%");
    if (self->opts.postgres)
        return s_durable_postgres (self, submit_full, noop_full);
    return 0;
}


//  ---------------------------------------------------------------------
//  (i) restart with many tasks queued

//  Return the bytes of the regular files in directory path (no recursion:
//  a state directory has no sub-directories), or 0
static uint64_t
s_dir_bytes (const char *path)
{
    uint64_t bytes = 0;
    DIR *dir = opendir (path);
    if (!dir)
        return 0;
    struct dirent *entry;
    while ((entry = readdir (dir))) {
        char file [PATH_MAX];
        struct stat status;
        snprintf (file, sizeof file, "%s/%s", path, entry->d_name);
        if (stat (file, &status) == 0 && S_ISREG (status.st_mode))
            bytes += (uint64_t) status.st_size;
    }
    closedir (dir);
    return bytes;
}

//  Queue count tasks of a 100-byte command on the current broker, no
//  workers: every one acknowledged. Returns 0, or -1.
static int
s_queue (drover_benchmark_t *self, long long count)
{
    drover_benchmark_tally_t tally = { 0 };
    drover_client_t *client = drover_benchmark_client (self, &tally);
    drover_submit_t *submit = drover_benchmark_submit_new (true, 0);
    int rc = drover_client_set_window (client, (uint32_t) self->opts.window);
    if (rc == 0 && drover_benchmark_submit_many (self, client, &tally, submit, count,
                                                 "restart: queue") < 0)
        rc = -1;
    drover_benchmark_progress (self, "restart: queue", count, count, true);
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    return rc;
}

//  Return the tasks the current broker lists as queued, or -1
static long long
s_queued (drover_benchmark_t *self)
{
    drover_client_t *client = drover_client_new (self->endpoint);
    assert (client);
    drover_client_set_timeout (client, 10000);
    drover_tasks_t *tasks = drover_client_tasks (client, DROVER_TASK_QUEUED, 0);
    long long queued = tasks? (long long) drover_tasks_count (tasks, DROVER_TASK_QUEUED): -1;
    if (!tasks)
        drover_cli_error (client, "restart");
    drover_tasks_destroy (&tasks);
    drover_client_destroy (&client);
    return queued;
}

//  Queue opts.restart_tasks, kill -9 the broker, start it again on its
//  state and time it to its first answer
int
drover_benchmark_phase_restart (drover_benchmark_t *self)
{
    long long count = self->opts.restart_tasks;
    if (drover_benchmark_broker_start (self, s_full) || s_queue (self, count))
        return -1;
    uint64_t rss_before = drover_benchmark_broker_rss (self);
    drover_benchmark_broker_kill (self);
    uint64_t crashed_bytes = s_dir_bytes (self->state_dir);
    fprintf (stderr, "drover bench: restart: killed with %lld tasks queued, %.1f MiB on disk; "
             "starting again\n", count, crashed_bytes / 1048576.0);
    int64_t elapsed = drover_benchmark_broker_restart (self, "restart: seconds loading");
    if (elapsed < 0)
        return -1;
    //  All it used to start: the file's check thread has exited by now
    int64_t restart_cpu = drover_benchmark_stat_cpu_nsec (self->broker);
    //  Once a listing is answered, assign has restored every task and
    //  handled LOADED (it hears LOADED before any request)
    long long restored = s_queued (self);
    uint64_t rss_after = drover_benchmark_broker_rss (self);
    uint64_t rss_peak = drover_benchmark_broker_peak (self);
    if (restored != count) {
        fprintf (stderr, "drover bench: restart: %lld tasks queued after the restart, not %lld\n",
                 restored, count);
        return -1;
    }
    //  A clean stop: SQLite checkpoints the WAL into the database on close
    drover_benchmark_reap (self->broker);
    self->broker = 0;
    uint64_t stopped_bytes = s_dir_bytes (self->state_dir);
    //  The floor: the same rows read from the same file, in the same run
    long long read = 0, read_wide = 0;
    int64_t floor = drover_benchmark_read_floor (self->state_dir, false, &read);
    int64_t wide = floor < 0? -1: drover_benchmark_read_floor (self->state_dir, true, &read_wide);
    int64_t check = wide < 0? -1: drover_benchmark_check_floor (self->state_dir);
    long long loaded = 0;
    int64_t load = check < 0? -1: drover_benchmark_load_floor (self->state_dir, count, &loaded);
    if (load < 0)
        return -1;
    if (floor < 0 || wide < 0 || read != count || read_wide != count || loaded != count) {
        fprintf (stderr, "drover bench: restart: the bare read found %lld tasks (%lld by the"
                 " wide query, %lld by the load floor), not %lld\n", read, read_wide, loaded,
                 count);
        return -1;
    }
    if (!rss_before || !rss_after || !rss_peak || !crashed_bytes || !stopped_bytes
    ||  restart_cpu < 0) {
        fprintf (stderr, "drover bench: restart: cannot read the broker's VmRSS, its CPU time "
                 "or the state directory's size\n");
        return -1;
    }
    drover_benchmark_figure (self, "restart_ms", elapsed / 1000.0, "msec");
    drover_benchmark_figure (self, "restart_read_floor_ms", floor / 1000.0, "msec");
    drover_benchmark_figure (self, "restart_read_wide_ms", wide / 1000.0, "msec");
    drover_benchmark_figure (self, "restart_check_floor_ms", check / 1000.0, "msec");
    drover_benchmark_figure (self, "restart_cpu_ms", restart_cpu / 1e6, "msec");
    //  A broker that checks its file before it writes reads it and checks
    //  it: on two cores or more, at best both at once
    int64_t checked = check > floor? check: floor;
    drover_benchmark_figure (self, "restart_vs_checked_floor",
                             (double) elapsed / (checked > 0? checked: 1), "x");
    drover_benchmark_figure (self, "restart_vs_floor", (double) elapsed / (floor > 0? floor: 1),
                             "x");
    drover_benchmark_figure (self, "restart_load_floor_ms", load / 1000.0, "msec");
    drover_benchmark_figure (self, "restart_load_floor_vs_read",
                             (double) load / (floor > 0? floor: 1), "x");
    drover_benchmark_figure (self, "restart_vs_load_floor", (double) elapsed / (load > 0? load: 1),
                             "x");
    drover_benchmark_figure (self, "restart_tasks_restored", (double) restored, "tasks");
    drover_benchmark_figure (self, "broker_rss_before_kill", rss_before / 1048576.0, "MiB");
    drover_benchmark_figure (self, "broker_rss_restarted", rss_after / 1048576.0, "MiB");
    drover_benchmark_figure (self, "broker_rss_restart_ratio", (double) rss_after / rss_before,
                             "x");
    drover_benchmark_figure (self, "broker_rss_restart_peak", rss_peak / 1048576.0, "MiB");
    drover_benchmark_figure (self, "broker_rss_restart_peak_ratio",
                             (double) rss_peak / rss_before, "x");
    drover_benchmark_figure (self, "state_bytes_per_task_wal", (double) crashed_bytes / count,
                             "bytes");
    drover_benchmark_figure (self, "state_bytes_per_task", (double) stopped_bytes / count,
                             "bytes");
    return 0;
}
