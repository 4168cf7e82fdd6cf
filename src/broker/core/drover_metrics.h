/*  =========================================================================
    drover_metrics - one snapshot of the broker's numbers, and how it is
    written for Prometheus and for the log

    Each actor keeps its own counters as plain increments in its own state;
    asked (METRICS), it fills a metricset with what it owns and says it
    (COUNTS), packed into one frame. The metrics actor merges the answers
    of one round into one metricset and writes it in the Prometheus text
    exposition format (version 0.0.4) or as the status line of the log.

    Every series has a fixed id (drover_metric_t): a label's values are a
    fixed list here (worker health, task state, how a task ended, an error
    code), so the number of series is bounded, whatever the cluster does.
    No series is per worker or per task label. A value never set is not
    written.

    Histograms (drover_histogram_t) are plain values an actor keeps and
    observes into at the transitions it sees: a count per bucket (seconds,
    fixed bounds), the count and the sum.

    A plain class: no threads, no I/O.
    =========================================================================
*/

#ifndef DROVER_METRICS_H_INCLUDED
#define DROVER_METRICS_H_INCLUDED

#include <czmq.h>
#include "drover_outbox.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Every series the broker exposes, by id. Grouped by family; a family's
//  series are contiguous (the writer relies on it).
typedef enum {
    //  schedq: connected workers by health, by admin state; capacity
    DROVER_METRIC_WORKERS_OK,
    DROVER_METRIC_WORKERS_PROBATION,
    DROVER_METRIC_WORKERS_LOW_DISK,
    DROVER_METRIC_WORKERS_LOST,             //  health: lost and not back since
    DROVER_METRIC_ADMIN_RUN,
    DROVER_METRIC_ADMIN_HOLD,
    DROVER_METRIC_ADMIN_DRAIN,
    DROVER_METRIC_WORKERS_LEVEL_1,          //  connected workers by protocol level
    DROVER_METRIC_WORKERS_LEVEL_2,          //  (PROTOCOL.md §12): 1, and 2 or more
    DROVER_METRIC_PROCS,
    DROVER_METRIC_PROCS_USED,
    DROVER_METRIC_MEMORY,
    DROVER_METRIC_MEMORY_USED,
    DROVER_METRIC_DEVICES_GPU,              //  counted devices of connected workers: gpu,
    DROVER_METRIC_DEVICES_OTHER,            //  and every other name together (bounded)
    DROVER_METRIC_DEVICES_USED_GPU,
    DROVER_METRIC_DEVICES_USED_OTHER,
    DROVER_METRIC_SHARE_OWNERS,             //  owners the scheduler knows
    DROVER_METRIC_QUOTA_HELD,               //  requests a running quota holds
    DROVER_METRIC_OFFERS_HELD,              //  offers workers hold ahead, unstarted
    //  assign: tasks held by state
    DROVER_METRIC_TASKS_QUEUED,
    DROVER_METRIC_TASKS_ASSIGNED,
    DROVER_METRIC_TASKS_RUNNING,
    DROVER_METRIC_TASKS_SUCCEEDED,
    DROVER_METRIC_TASKS_FAILED,
    DROVER_METRIC_TASKS_CANCELLED,
    //  assign: counters
    DROVER_METRIC_SUBMITTED,
    DROVER_METRIC_ENDED_SUCCEEDED,
    DROVER_METRIC_ENDED_FAILED,
    DROVER_METRIC_ENDED_TIMED_OUT,
    DROVER_METRIC_ENDED_CANCELLED,
    DROVER_METRIC_ENDED_SPAWN_FAILED,
    DROVER_METRIC_ENDED_LOST,
    DROVER_METRIC_ENDED_POISON,
    DROVER_METRIC_ENDED_DEPENDENCY,         //  cancelled: what it waited for cannot be met
    DROVER_METRIC_ENDED_OOM,                //  failed: the OOM killer, past its memory limit
    DROVER_METRIC_REQUEUED,
    DROVER_METRIC_PREEMPTED,                //  attempts stopped to make room for another task
    DROVER_METRIC_OFFERS_RETURNED,          //  offers held ahead, given back unstarted (level 9)
    DROVER_METRIC_REFUSED_STALE,            //  409: a result of an attempt no longer current
    DROVER_METRIC_REFUSED_NOT_FOUND,        //  404: a report of a task not known
    DROVER_METRIC_REFUSED_NOT_REGISTERED,   //  401: a report not from the worker's registration
    //  assign: QUEUED tasks held back before the queue, by cause
    //  (drover_waits_t's order)
    DROVER_METRIC_WAITING_AFTER,
    DROVER_METRIC_WAITING_BEGIN,
    DROVER_METRIC_WAITING_RETRY,
    DROVER_METRIC_WAITING_ARRAY,
    DROVER_METRIC_WAITING_GROUP,
    //  health and probation: counters
    DROVER_METRIC_WORKERS_LOST_TOTAL,
    DROVER_METRIC_PROBATIONS,
    //  health: the heartbeat interval a worker registering now is told
    //  and the grace left (msec, written as seconds), the rate aimed at,
    //  heartbeats heard
    DROVER_METRIC_HEARTBEAT_INTERVAL,
    DROVER_METRIC_HEARTBEAT_RATE,
    DROVER_METRIC_HEARTBEATS,
    DROVER_METRIC_HEALTH_GRACE,
    //  health: registered workers by the release their HELLO said, the
    //  most common DROVER_METRICS_RELEASES apart (each slot's release set
    //  with drover_metrics_set_release), the rest as "other"; HELLOs
    //  refused for their level or release (health/min-release); workers
    //  told a new heartbeat interval as the fleet changed
    DROVER_METRIC_WORKERS_RELEASE_0,
    DROVER_METRIC_WORKERS_RELEASE_LAST = DROVER_METRIC_WORKERS_RELEASE_0 + 7,
    DROVER_METRIC_WORKERS_RELEASE_OTHER,
    DROVER_METRIC_WORKERS_REFUSED_TOTAL,
    DROVER_METRIC_WORKERS_REPACED_TOTAL,
    //  the pool: instances by state (in drover_instance_state_t's order),
    //  their price, what they run and offer; its counters
    DROVER_METRIC_POOL_UNKNOWN,
    DROVER_METRIC_POOL_BOOTING,
    DROVER_METRIC_POOL_IDLE,
    DROVER_METRIC_POOL_RUNNING,
    DROVER_METRIC_POOL_SHUTDOWN,
    DROVER_METRIC_POOL_PRICE,               //  per hour, in thousandths (written as units)
    DROVER_METRIC_POOL_TASKS,
    DROVER_METRIC_POOL_PROCS,
    DROVER_METRIC_POOL_PROCS_USED,
    DROVER_METRIC_POOL_MEMORY,
    DROVER_METRIC_POOL_MEMORY_USED,
    DROVER_METRIC_POOL_CREATES,
    DROVER_METRIC_POOL_CREATE_FAILURES,
    DROVER_METRIC_POOL_DESTROYS,
    DROVER_METRIC_POOL_QUOTA_BACKOFF,       //  1 while creates wait after a quota error
    DROVER_METRIC_POOL_PROBING,             //  registered instances whose probe has not passed
    DROVER_METRIC_POOL_PROBES,
    DROVER_METRIC_POOL_PROBE_FAILURES,
    DROVER_METRIC_POOL_SURPLUS,             //  booting instances destroyed as surplus
    DROVER_METRIC_POOL_UNKNOWN_TYPES,       //  listed instances ignored for an unknown type
    //  the reconciler: services by state (in drover_service_state_t's
    //  order), replicas wanted, running, pending; its counters; the last
    //  term's length (msec, written as seconds); the replicas' restarts
    //  by bucket (0, 1, 2-3, 4-7 ... 64 or more: not cumulated) and their
    //  sum, written as one histogram
    DROVER_METRIC_SERVICES_OK,
    DROVER_METRIC_SERVICES_UNDER,
    DROVER_METRIC_SERVICES_OVER,
    DROVER_METRIC_SERVICES_LOST,
    DROVER_METRIC_SERVICES_CRASHING,
    DROVER_METRIC_SERVICE_REPLICAS_WANTED,
    DROVER_METRIC_SERVICE_REPLICAS_RUNNING,
    DROVER_METRIC_SERVICE_REPLICAS_PENDING,
    DROVER_METRIC_SERVICE_STARTED,
    DROVER_METRIC_SERVICE_STOPPED,
    DROVER_METRIC_SERVICE_MOVED,
    DROVER_METRIC_SERVICE_TERMS,
    DROVER_METRIC_SERVICE_TERMS_INCOMPLETE,
    DROVER_METRIC_SERVICE_TERM_SECONDS,     //  msec (written as seconds)
    DROVER_METRIC_SERVICE_RESTARTS_0,       //  the first of DROVER_HISTOGRAM_BUCKETS
    DROVER_METRIC_SERVICE_RESTARTS_LAST = DROVER_METRIC_SERVICE_RESTARTS_0 + 7,
    DROVER_METRIC_SERVICE_RESTARTS_SUM,
    DROVER_METRIC_SERVICE_BEST,             //  running replicas at their best position
    DROVER_METRIC_SERVICE_NOT_BEST,         //  ... and further down their order
    DROVER_METRIC_SERVICE_RANK_0,           //  the first of DROVER_HISTOGRAM_BUCKETS
    DROVER_METRIC_SERVICE_RANK_LAST = DROVER_METRIC_SERVICE_RANK_0 + 7,
    DROVER_METRIC_SERVICE_CAPPED,           //  left unplaced by max-per-worker, last term
    DROVER_METRIC_SERVICE_REBALANCED,       //  moved toward their best worker, total
    //  the main: messages it answered with an error itself
    DROVER_METRIC_BAD_400,
    DROVER_METRIC_BAD_403,
    DROVER_METRIC_BAD_413,
    DROVER_METRIC_BAD_415,
    DROVER_METRIC_BAD_426,
    DROVER_METRIC_BAD_302,
    DROVER_METRIC_LEVEL_FITTED,             //  messages re-encoded for an older peer
    DROVER_METRIC_LEVEL_UNSENT,             //  messages an older peer's level has not
    //  the main: peer connections by class, their limits, and their counters
    DROVER_METRIC_CONNECTIONS_SILENT,
    DROVER_METRIC_CONNECTIONS_CLIENT,
    DROVER_METRIC_CONNECTIONS_MEMBER,
    DROVER_METRIC_CONNECTIONS_TRIAL,
    DROVER_METRIC_CONNECTIONS_REFUSED,      //  excess, or cut and not closed yet
    DROVER_METRIC_CONNECTION_LIMIT,
    DROVER_METRIC_CONNECTION_RESERVE,
    DROVER_METRIC_CONNECTIONS_ACCEPTED,
    DROVER_METRIC_CLOSED_SILENT,
    DROVER_METRIC_CLOSED_EVICTED,
    DROVER_METRIC_CLOSED_REFUSED,
    DROVER_METRIC_CLOSED_UNREPORTED,        //  closed without libzmq saying so: found gone
    //  the store: online backups (drover admin backup)
    DROVER_METRIC_BACKUPS_OK,
    DROVER_METRIC_BACKUPS_FAILED,
    DROVER_METRIC_BACKUP_LAST,              //  seconds since the epoch of the last one made
    //  the metrics actor: the process
    DROVER_METRIC_START_TIME,               //  seconds since the epoch
    DROVER_METRIC_OPEN_FDS,
    DROVER_METRIC_MAX_FDS,
    DROVER_METRIC_RESIDENT,                 //  bytes
    DROVER_METRICS
} drover_metric_t;

//  Releases a metricset counts workers of apart (drover_workers_release),
//  and the bytes of each one's label value at most
#define DROVER_METRICS_RELEASES         8
#define DROVER_METRICS_RELEASE_SIZE     64

//  The histograms: seconds
typedef enum {
    DROVER_HISTOGRAM_QUEUE_WAIT,    //  submitted to its first attempt's start
    DROVER_HISTOGRAM_RUN,           //  its last attempt's start to the task's end
    DROVER_HISTOGRAM_END_TO_END,    //  submitted to final
    DROVER_HISTOGRAMS
} drover_histogram_id_t;

//  Upper bounds of the buckets, seconds (the last, +Inf, is implicit)
#define DROVER_HISTOGRAM_BOUNDS     16
//  A histogram: a plain value its actor keeps and observes into
typedef struct {
    uint64_t buckets [DROVER_HISTOGRAM_BOUNDS];     //  observations <= each bound (not cumulated)
    uint64_t count;             //  observations in all
    uint64_t sum;               //  their sum, msec
} drover_histogram_t;

//  Count one observation of msec (negative counts as 0)
void
    drover_histogram_observe (drover_histogram_t *self, int64_t msec);

//  The error code a DROVER_METRIC_BAD_* series counts, or the series that
//  counts an error code (-1 if none does)
int
    drover_metrics_bad_code (int code);

typedef struct _drover_metrics_t drover_metrics_t;

//  Create a snapshot holding nothing
drover_metrics_t *
    drover_metrics_new (void);

//  Destroy the snapshot; harmless on NULL
void
    drover_metrics_destroy (drover_metrics_t **self_p);

//  Forget every value: a new round
void
    drover_metrics_reset (drover_metrics_t *self);

//  Set one series
void
    drover_metrics_set (drover_metrics_t *self, drover_metric_t id, uint64_t value);

//  Return a series' value, 0 if not set
uint64_t
    drover_metrics_get (drover_metrics_t *self, drover_metric_t id);

//  Tell whether a series was set
bool
    drover_metrics_has (drover_metrics_t *self, drover_metric_t id);

//  Set the release slot (0 .. DROVER_METRICS_RELEASES - 1) counts workers
//  of, and how many: a drover_workers_release series
void
    drover_metrics_set_release (drover_metrics_t *self, size_t slot, const char *release,
                                uint64_t count);

//  Set one histogram (copied)
void
    drover_metrics_set_histogram (drover_metrics_t *self, drover_histogram_id_t id,
                                    const drover_histogram_t *histogram);

//  Pack what was set into a frame (native layout: between threads of one
//  process only). Caller owns the frame.
zframe_t *
    drover_metrics_pack (drover_metrics_t *self);

//  Say COUNTS round(8) values(f) into outbox: an actor's answer to
//  METRICS round (actors/ACTORS.md)
void
    drover_metrics_say (drover_metrics_t *self, drover_outbox_t *outbox, uint64_t round);

//  Take what a packed frame set (another actor's answer) into self,
//  leaving the rest as it was. Returns 0, or -1 if the frame is not one.
int
    drover_metrics_merge (drover_metrics_t *self, zframe_t *frame);

//  Set the text of the info series (drover_broker_info): the version and
//  the ROUTER endpoint, as label values (escaped when written)
void
    drover_metrics_set_info (drover_metrics_t *self, const char *version,
                               const char *endpoint);

//  Write the snapshot in the Prometheus text exposition format 0.0.4.
//  Caller frees the text with zstr_free.
char *
    drover_metrics_exposition (drover_metrics_t *self);

//  Write the snapshot as the status line of the log ("queued=... ").
//  Caller frees with zstr_free.
char *
    drover_metrics_status (drover_metrics_t *self);

//  Escape a label value for the exposition format (backslash, double
//  quote and newline). Caller frees with zstr_free.
char *
    drover_metrics_escape (const char *value);

#ifdef __cplusplus
}
#endif

#endif
