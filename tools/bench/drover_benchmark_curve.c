/*  =========================================================================
    drover_benchmark_curve - `drover bench`'s phase (j) curve: what CURVE
    costs. The no-op throughput of (a) and the round trip of (b), with
    CURVE on every connection, beside the same without, each on a fresh
    broker with durability off (so that the disk does not hide it). The
    keys are made with zcert in a temporary directory: the broker's pair,
    a worker key and a client key in its keys directory; the in-process
    workers and the client get theirs through drover_worker_set_keys and
    drover_client_set_keys.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_benchmark.h"
#include <sys/stat.h>

//  The keys of the phase, in a temporary directory
typedef struct {
    char dir [64];              //  /tmp/drover-bench-keys-XXXXXX
    char broker [128];          //  the broker's pair: broker.key (+ _secret)
    char keys [128];            //  the keys directory: workers/, clients/
    char worker [128];          //  the workers' pair
    char client [128];          //  the client's pair
    char key_setting [160];     //  security/key=...
    char keys_setting [160];    //  security/keys=...
} s_curve_keys_t;

//  Save a key pair at path (its secret readable by us only) and, with
//  role, its public half in the keys directory. Returns 0, or -1.
static int
s_save_pair (s_curve_keys_t *self, const char *path, const char *role, const char *name)
{
    zcert_t *cert = zcert_new ();
    char *secret = zsys_sprintf ("%s_secret", path);
    int rc = zcert_save (cert, path) || chmod (secret, 0600)? -1: 0;
    if (rc == 0 && role) {
        char *public_path = zsys_sprintf ("%s/%s/%s.key", self->keys, role, name);
        rc = zcert_save_public (cert, public_path);
        zstr_free (&public_path);
    }
    zstr_free (&secret);
    zcert_destroy (&cert);
    return rc;
}

//  Make the keys. Returns 0, or -1 (said).
static int
s_curve_keys_make (s_curve_keys_t *self)
{
    snprintf (self->dir, sizeof self->dir, "/tmp/drover-bench-keys-XXXXXX");
    if (!mkdtemp (self->dir)) {
        fprintf (stderr, "drover bench: curve: cannot make a directory: %s\n", strerror (errno));
        self->dir [0] = 0;
        return -1;
    }
    snprintf (self->broker, sizeof self->broker, "%s/broker.key", self->dir);
    snprintf (self->keys, sizeof self->keys, "%s/keys", self->dir);
    snprintf (self->worker, sizeof self->worker, "%s/worker.key", self->dir);
    snprintf (self->client, sizeof self->client, "%s/client.key", self->dir);
    snprintf (self->key_setting, sizeof self->key_setting, "security/key=%s", self->broker);
    snprintf (self->keys_setting, sizeof self->keys_setting, "security/keys=%s", self->keys);
    char *workers = zsys_sprintf ("%s/workers", self->keys);
    char *clients = zsys_sprintf ("%s/clients", self->keys);
    int rc = mkdir (self->keys, 0755) || mkdir (workers, 0755) || mkdir (clients, 0755)
          || s_save_pair (self, self->broker, NULL, NULL)
          || s_save_pair (self, self->worker, "workers", "bench-worker")
          || s_save_pair (self, self->client, "clients", "bench-client")? -1: 0;
    zstr_free (&workers);
    zstr_free (&clients);
    if (rc)
        fprintf (stderr, "drover bench: curve: cannot write the keys in %s\n", self->dir);
    return rc;
}

//  Remove the keys
static void
s_curve_keys_remove (s_curve_keys_t *self)
{
    if (!*self->dir)
        return;
    char *command = zsys_sprintf ("rm -rf '%s'", self->dir);
    if (system (command))
        fprintf (stderr, "drover bench: curve: cannot remove %s\n", self->dir);
    zstr_free (&command);
}

//  Time opts.rtt tasks one at a time on the current broker, submit to
//  TASK DONE, through opts.workers in-process workers; the p50 and p99
//  in *p50 and *p99, usec. Returns 0, or -1.
static int
s_rtt (drover_benchmark_t *self, double *p50, double *p99)
{
    drover_benchmark_tally_t tally = { 0 };
    drover_client_t *client = drover_benchmark_client (self, &tally);
    drover_benchmark_crew_t crew = { 0 };
    size_t count = (size_t) self->opts.rtt;
    int64_t *samples = (int64_t *) zmalloc (count * sizeof (int64_t));
    drover_submit_t *submit = drover_benchmark_submit_new (false, DROVER_SUBMIT_NOTIFY);
    int rc = drover_benchmark_crew_start (self, &crew, client);
    for (size_t index = 0; rc == 0 && index < count; index++) {
        int64_t started = zclock_usecs ();
        uint64_t task = 0;
        if (drover_client_submit (client, submit, &task)
        ||  drover_client_wait (client, &task, 1, NULL, NULL, NULL))
            rc = drover_cli_error (client, "bench: curve: rtt");
        samples [index] = zclock_usecs () - started;
    }
    if (rc == 0) {
        qsort (samples, count, sizeof (int64_t), drover_benchmark_compare_usec);
        *p50 = (double) samples [count / 2];
        *p99 = (double) samples [count * 99 / 100];
    }
    drover_submit_destroy (&submit);
    drover_client_destroy (&client);
    drover_benchmark_crew_stop (&crew);
    free (samples);
    return rc;
}

//  Measure no-op throughput and round trip on a fresh broker with settings.
//  Returns 0, or -1.
static int
s_measure (drover_benchmark_t *self, const char **settings, const char *phase,
           double *throughput, double *p50, double *p99)
{
    fprintf (stderr, "drover bench: %s\n", phase);
    int rc = drover_benchmark_broker_start (self, settings);
    if (rc == 0) {
        *throughput = drover_benchmark_noop_rate (self, phase);
        rc = *throughput < 0? -1: 0;
    }
    drover_benchmark_broker_stop (self);
    if (rc == 0)
        rc = drover_benchmark_broker_start (self, settings);
    if (rc == 0)
        rc = s_rtt (self, p50, p99);
    drover_benchmark_broker_stop (self);
    return rc;
}

//  (j) no-op throughput and round trip, CURVE on beside off
int
drover_benchmark_phase_curve (drover_benchmark_t *self)
{
    s_curve_keys_t keys = { .dir = "" };
    if (s_curve_keys_make (&keys)) {
        s_curve_keys_remove (&keys);
        return -1;
    }
    const char *plain [] = { "broker/durability=off", NULL };
    const char *curve [] = { "broker/durability=off", keys.key_setting, keys.keys_setting,
                             NULL };
    double plain_rate = -1, curve_rate = -1, plain_p50 = 0, plain_p99 = 0;
    double curve_p50 = 0, curve_p99 = 0;
    int rc = s_measure (self, plain, "curve: off", &plain_rate, &plain_p50, &plain_p99);
    if (rc == 0) {
        self->client_key = keys.client;
        self->worker_key = keys.worker;
        self->server_key = keys.broker;
        rc = s_measure (self, curve, "curve: on", &curve_rate, &curve_p50, &curve_p99);
        self->client_key = self->worker_key = self->server_key = NULL;
    }
    s_curve_keys_remove (&keys);
    if (rc || plain_rate <= 0)
        return -1;
    drover_benchmark_figure (self, "noop_throughput_curve", curve_rate, "tasks/s");
    drover_benchmark_figure (self, "noop_throughput_plain", plain_rate, "tasks/s");
    drover_benchmark_figure (self, "noop_curve_vs_plain_pct", 100 * curve_rate / plain_rate, "%");
    drover_benchmark_figure (self, "rtt_p50_curve", curve_p50, "us");
    drover_benchmark_figure (self, "rtt_p50_plain", plain_p50, "us");
    drover_benchmark_figure (self, "rtt_p99_curve", curve_p99, "us");
    drover_benchmark_figure (self, "rtt_p99_plain", plain_p99, "us");
    return 0;
}
