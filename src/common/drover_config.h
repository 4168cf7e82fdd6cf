/*  =========================================================================
    drover_config - the broker's settings: defaults, a ZPL file, overrides

    Every setting has a row in one table (path, kind, min, max, default,
    comment), as Redis's config table does; the defaults themselves are
    defined once, in drover_defaults.h, for the table and the actors. A file or an override naming an
    unknown key, or a value out of range, is refused with a message naming
    the key; the broker then stops before it binds anything.
    =========================================================================
*/

#ifndef DROVER_CONFIG_H_INCLUDED
#define DROVER_CONFIG_H_INCLUDED

#include <czmq.h>
#include "drover_limits.h"

//  An instance type of the elastic pool (section pool/type/NAME)
typedef struct {
    char name [DROVER_ID_MAX + 1];  //  its name: letters, digits, '-', '_', '.'
    uint32_t procs;             //  procs/memory/labels/price: what it offers
    uint64_t mem;               //  memory, bytes
    char *labels;               //  labels its worker carries, "k=v" joined by "\n", "" none
    double price;               //  price per hour, in the operator's currency
    char *devices;              //  counted devices its worker has, "gpu=1" (canonical
                                //  drover_devicelist text), "" or NULL none
} drover_pooltype_t;

#define DROVER_POOL_TYPES_MAX   64  //  instance types at most

//  The elastic pool's settings (section pool); no types: no pool
typedef struct {
    char *name;                 //  pool/name: the tag its instances carry
    char *driver;               //  pool/driver: "local" or "command"
    char *command;              //  pool/command: the command driver's executable
    char *worker;               //  pool/worker: the local driver's drover binary, "" this one
    char *local_dir;            //  pool/local-dir: the local driver's instances, "" state-dir/pool
    char *broker;               //  pool/broker: endpoint instances' workers connect to, "" ours
    uint32_t max_instances;     //  pool/max-instances: live instances at most
    double max_price;           //  pool/max-price: total price per hour at most, 0 no limit
    uint32_t min_instances;     //  pool/min-instances: kept even when idle
    uint32_t max_creates;       //  pool/max-creates: creates one pass asks at most
    uint32_t ops_per_second;    //  pool/ops-per-second: driver operations a second at most
    uint32_t boot_timeout;      //  pool/boot-timeout: msec from create to registered
    uint32_t idle_timeout;      //  pool/idle-timeout: msec idle before it is retired
    uint32_t probe_timeout;     //  pool/probe-timeout: msec lost, or registered and its
                                //  probe not passed, before it is destroyed
    uint32_t shutdown_timeout;  //  pool/shutdown-timeout: msec listed after destroy before again
    uint32_t quota_backoff;     //  pool/quota-backoff: msec without creates after a quota error
    uint32_t rate_backoff;      //  pool/rate-backoff: msec without operations after rate limited
    uint32_t warn_failures;     //  pool/warn-failures: consecutive create failures warned of
    uint32_t list_interval;     //  pool/list-interval: msec between lists
    uint32_t op_timeout;        //  pool/op-timeout: msec a driver operation may take
    char *probe;                //  pool/probe: boot probes, "auto" (the local driver's), "on", "off"
    uint32_t probes_per_second; //  pool/probes-per-second: boot probes a second at most
    uint32_t probe_interval;    //  pool/probe-interval: msec between probes of one instance
    uint32_t create_backoff;    //  pool/create-backoff: msec without creates after 2 failures
    uint32_t create_backoff_max;    //  pool/create-backoff-max: the most it doubles to
    drover_pooltype_t types [DROVER_POOL_TYPES_MAX];    //  pool/type/NAME/...
    size_t ntypes;              //  entries in types; 0 = no pool
} drover_poolconfig_t;

//  The reconciler's settings (section service)
typedef struct {
    uint32_t term;              //  service/term: msec between terms
    uint32_t gather_timeout;    //  service/gather-timeout: msec a term waits for workers
    uint32_t restart_delay;     //  service/restart-delay: msec before an exited replica
                                //  restarts (a service's own delay wins)
    uint32_t max_restart_delay; //  service/max-restart-delay: msec, the doubling's cap
    uint32_t stable_after;      //  service/stable-after: msec run that ends a crash streak
    uint32_t crash_warn;        //  service/crash-warn: quick exits in a row: CRASHING
    uint32_t max_stop_percent;  //  service/max-stop-percent: a term that would stop more of
                                //  the running replicas (not asked by a definition) stops none
    uint32_t max_services;      //  service/max-services: services defined at most
    uint32_t max_replicas;      //  service/max-replicas: replicas over all services at most
    uint32_t rebalance_moves;   //  service/rebalance-moves: replicas a term moves toward
                                //  their best worker at most, 0 none (keep-balance)
} drover_serviceconfig_t;

//  Several brokers (section ha): a leader elected through etcd
typedef struct {
    char *etcd;                 //  ha/etcd: etcd endpoints, comma-separated; "" alone
    char *name;                 //  ha/name: this broker's name, "" its host name
    char *advertise;            //  ha/advertise: the endpoint peers reach it on, "" ours
    char *prefix;               //  ha/prefix: etcd key prefix of this cluster
    uint32_t lease_ttl;         //  ha/lease-ttl: msec the session lease lives unrenewed
    char *queues;               //  ha/queues: named queues offered, "Q=PORT,...", "" none
    char *strategy;             //  ha/strategy: "leader", "spread" or "rr"
    char *watch;                //  ha/watch: "on" (watch etcd) or "off" (poll only)
    uint32_t safety_check;      //  ha/safety-check: msec between reads while the watch is up
    uint32_t check_max;         //  ha/check-max: msec between reads at most while polling
    uint32_t retry_min;         //  ha/retry-min: msec, least wait after a failed etcd call
    uint32_t retry_max;         //  ha/retry-max: msec, most wait after a failed etcd call
    uint32_t backoff_min;       //  ha/start-backoff-min: msec before a failed start (leader,
                                //  or a named queue's cell) is tried again
    uint32_t backoff_max;       //  ha/start-backoff-max: msec, that backoff's cap
} drover_haconfig_t;

//  The broker's settings, read once at start-up; values only
typedef struct {
    char *endpoint;             //  broker/endpoint: ROUTER for workers and clients
    char *events;               //  broker/events: PUB endpoint for the event stream
    uint32_t insecure;          //  broker/insecure: 1 allows binding non-loopback addresses
    char *metrics;              //  broker/metrics: HOST:PORT of the HTTP metrics, "" for none
    uint32_t metrics_public;    //  broker/metrics-public: 1 allows a non-loopback metrics address
    uint32_t status_interval;   //  broker/status-interval: msec between status lines, 0 none
    char *log_level;            //  broker/log-level: error, warning, notice, info or debug
    uint32_t max_message;       //  broker/max-message: bytes, ZMQ_MAXMSGSIZE
    uint32_t hwm;               //  broker/hwm: messages queued per peer
    uint32_t peer_bytes;        //  broker/peer-bytes: bytes queued from one peer, at most
    uint32_t silent_timeout;    //  broker/silent-timeout: msec a connection may say nothing valid
    uint32_t member_reserve;    //  broker/member-reserve: percent of connections kept for members
    uint32_t max_per_address;   //  broker/max-per-address: strangers' connections from one address, 0 any
    char *state_dir;            //  broker/state-dir: where the state is kept
    char *durability;           //  broker/durability: full, batch or off
    uint32_t commit_every;      //  broker/commit-every: msec between commits (batch)
    char *cpus;                 //  broker/cpus: CPU list the broker runs on, "" any
    char *security_key;         //  security/key: the broker's key pair file, "" for no CURVE
    char *security_keys;        //  security/keys: public keys, one subdirectory per role
    uint32_t handshake;         //  security/handshake: msec to finish a connection's handshake
    uint32_t history_count;     //  store/history-count: final tasks kept on disk
    uint32_t history_age;       //  store/history-age: seconds a final task is kept on disk
    uint32_t history_events;    //  store/history-events: events kept on disk
    uint32_t heartbeat;         //  health/heartbeat: msec between worker heartbeats
    uint32_t lost_after;        //  health/lost-after: msec of silence before LOST
    uint32_t max_workers;       //  health/max-workers: registered workers at most
    uint32_t heartbeat_rate;    //  health/heartbeat-rate: heartbeats a second aimed at, 0: no scaling
    uint32_t grace;             //  health/grace: msec with no LOST after start, 0: derived
    uint32_t stats_period;      //  health/stats-period: msec workers' stats are held back
    char *min_release;          //  health/min-release: oldest worker release taken, "" any
    uint32_t probation_timeout; //  probation/timeout: msec on probation after a failure
    uint32_t max_shelve;        //  schedq/max-shelve: unfit requests one pass looks past
    uint32_t max_leases;        //  schedq/max-leases: idle workers lent to assign at once
    uint32_t min_disk_free;     //  schedq/min-disk-free: MiB free under which a worker gets no work
    uint32_t keep_gone;         //  schedq/keep-gone: msec a lost or left worker stays listed
    uint32_t max_gone;          //  schedq/max-gone: lost or left workers listed at most
    uint32_t ack_timeout;       //  assign/ack-timeout: msec for a worker to take an offer
    uint32_t offer_ahead;       //  assign/offer-ahead: offers a worker may hold ahead
    uint32_t lost_retries;      //  assign/lost-retries: worker losses a task survives
    uint32_t max_queued;        //  assign/max-queued: tasks not yet final, at most
    uint32_t max_queued_bytes;  //  assign/max-queued-bytes: their bodies and labels, at most
    uint32_t keep_finished;     //  assign/keep-finished: finished tasks remembered
    uint32_t keep_finished_bytes;   //  assign/keep-finished-bytes: bytes they hold, at most
    uint32_t restart_grace;     //  assign/restart-grace: msec for workers to report after a restart
    drover_poolconfig_t pool;   //  pool/...: the elastic pool
    drover_serviceconfig_t service; //  service/...: the reconciler
    drover_haconfig_t ha;       //  ha/...: several brokers
    uint32_t affinity_wait;     //  schedq/affinity-wait: msec an affinity task waits for its
                                //  first worker before the next in order may take it
    char *share_accounts;       //  share/accounts: "team-a:alice,bob;team-b:carol"
    char *share_weights;        //  share/weights: "team-a=3,alice=2"
    char *share_quotas;         //  share/quotas: "team-a:procs=40,mem=64G,gpu=4,queued=1000"
    char *preemption;           //  sched/preemption: on or off
    uint32_t preempt_max;       //  sched/preempt-max: tasks stopped per pass, at most
} drover_config_t;

//  Create settings holding every default
drover_config_t *
    drover_config_new (void);

//  Copy settings (a broker of one named queue starts from its host's)
drover_config_t *
    drover_config_dup (drover_config_t *self);

//  Destroy settings; harmless on NULL
void
    drover_config_destroy (drover_config_t **self_p);

//  Set one value by path ("health/lost-after") from text. Returns 0, or -1
//  with a message naming the key in *error_p (caller frees with zstr_free).
int
    drover_config_set (drover_config_t *self, const char *path, const char *value,
                       char **error_p);

//  Set one value from "section/key=value" (a --set flag's text). Returns 0,
//  or -1 with a message in *error_p (caller frees with zstr_free).
int
    drover_config_set_assignment (drover_config_t *self, const char *assignment,
                                  char **error_p);

//  Load a ZPL file over the current values. Returns 0, or -1 with a message
//  in *error_p (caller frees): every mistake, one a line. Unknown keys and
//  bad values are errors; the keys that are right are still set.
int
    drover_config_load (drover_config_t *self, const char *filename, char **error_p);

//  Append *reason_p (taken: NULL after) to *error_p as one more line;
//  *error_p made if NULL (caller frees). Harmless if *reason_p is NULL.
void
    drover_config_add_error (char **error_p, char **reason_p);

//  Print every setting as a commented ZPL file (the documented defaults)
void
    drover_config_print (drover_config_t *self, FILE *stream);

//  Check what single keys cannot (every instance type has procs,
//  pool/min-instances at most pool/max-instances, the command driver's
//  executable). Returns 0, or -1 with a message naming the key in *error_p
//  (caller frees).
int
    drover_config_check_pool (drover_config_t *self, char **error_p);

//  Return the path of the setting at index ("section/key", the settings
//  table's order), or NULL past the last
const char *
    drover_config_path (size_t index);

//  Tell whether the setting at index holds its default value
bool
    drover_config_is_default (drover_config_t *self, size_t index);

//  Tell whether self and other hold different values for the setting at
//  index (the settings table's order, drover_config_path)
bool
    drover_config_differs (drover_config_t *self, drover_config_t *other, size_t index);

//  Set the setting at index to other's value (a reload applies one)
void
    drover_config_take (drover_config_t *self, drover_config_t *other, size_t index);

//  Tell whether the pool's instance types (pool/type/NAME/...) differ
bool
    drover_config_types_differ (drover_config_t *self, drover_config_t *other);

//  Refuse settings that would do nothing (src/common/drover_configcheck.c):
//  one changed from its default that takes effect only with another that
//  is not set (pool/... without
//  an instance type, ha/... without ha/etcd, security/keys without
//  security/key and the reverse, broker/metrics-public without
//  broker/metrics, broker/commit-every without durability batch,
//  pool/command with the local driver, pool/max-price with no priced
//  type...). Returns 0, or -1 with *error_p (caller frees) naming the
//  settings and what they need, one line per rule broken (appended to what
//  *error_p holds, if anything).
int
    drover_config_check_together (drover_config_t *self, char **error_p);

//  Say which settings changed from their defaults do nothing because
//  another turned their feature off on purpose (store/..., broker/state-dir
//  and assign/restart-grace with broker/durability off): a sentence for
//  the log (caller frees), or NULL if none
char *
    drover_config_idle (drover_config_t *self);

//  Parse a size: digits with an optional K, M, G or T suffix (powers of
//  1024) and an optional trailing B, as `drover worker --mem` takes it.
//  Returns 0 and sets *bytes_p, or -1 (0 is not a size).
int
    drover_config_parse_size (const char *text, uint64_t *bytes_p);

//  Write bytes for a person into text (size bytes): "512 bytes", "1.5 MiB"
void
    drover_config_print_size (uint64_t bytes, char *text, size_t size);

//  Parse a price: a number, 0 or more, finite (per hour, in the operator's
//  currency). Returns 0, or -1 with *error_p (ours to free) naming path.
int
    drover_config_parse_price (const char *path, const char *value, double *price_p,
                               char **error_p);

//  Return a heap copy of pool settings (strings and labels copied)
drover_poolconfig_t *
    drover_poolconfig_dup (const drover_poolconfig_t *pool);

//  Destroy a copy made by drover_poolconfig_dup; harmless on NULL
void
    drover_poolconfig_destroy (drover_poolconfig_t **self_p);

//  Check that an endpoint is tcp://HOST:PORT or ipc://PATH and, unless
//  insecure, that HOST is a loopback address. Returns 0, or -1 with
//  a message in *error_p (caller frees).
int
    drover_config_check_endpoint (const char *endpoint, bool insecure, char **error_p);

//  Check a metrics address: HOST:PORT (an IPv4 address, [IPv6] or
//  localhost, and a port) and, unless public, that HOST is loopback; ""
//  is none and passes. Returns 0, or -1 with a message in *error_p
//  (caller frees).
int
    drover_config_check_metrics (const char *address, bool public_, char **error_p);

#endif
