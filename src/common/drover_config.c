/*  =========================================================================
    drover_config - the broker's settings: defaults, a ZPL file, overrides

    One table lists every setting. Loading a file walks the file, not the
    table, so that a misspelt key is an error rather than silently ignored.
    The pool's instance types (pool/type/NAME/KEY) are drover_poolconfig's.
    =========================================================================
*/

#include "drover_config.h"
#include "drover_defaults.h"
#include "drover_cpus.h"
#include "drover_semver.h"
#include "drover_poolconfig.h"
#include "drover_msg.h"
#include <stddef.h>
#include <errno.h>
#include <math.h>

typedef enum { S_UINT, S_STRING, S_PRICE } s_kind_t;

//  One row of the settings table
typedef struct {
    const char *path;           //  "section/key"
    s_kind_t kind;              //  number, string or price (a double)
    size_t offset;              //  where the value lives in drover_config_t
    uint32_t min;               //  smallest number allowed
    uint32_t max;               //  largest number allowed
    uint32_t number;            //  default of a number or price (drover_defaults.h)
    const char *text;           //  default of a string (drover_defaults.h), or NULL
    const char *comment;        //  unit and meaning, for drover_config_print
} s_setting_t;

#define S_AT(field) offsetof (drover_config_t, field)

static const s_setting_t s_settings [] = {
    { "broker/endpoint", S_STRING, S_AT (endpoint), 0, 0,
      0, DROVER_DEFAULT_ENDPOINT,
      "ROUTER endpoint for workers and clients" },
    { "broker/events", S_STRING, S_AT (events), 0, 0,
      0, DROVER_DEFAULT_EVENTS,
      "PUB endpoint for the event stream" },
    { "broker/insecure", S_UINT, S_AT (insecure), 0, 1,
      DROVER_DEFAULT_INSECURE, NULL,
      "1 allows non-loopback endpoints: anyone who reaches them can run commands" },
    { "broker/metrics", S_STRING, S_AT (metrics), 0, 0,
      0, DROVER_DEFAULT_METRICS,
      "HOST:PORT where Prometheus metrics are served over HTTP (/metrics); \"\" serves none" },
    { "broker/metrics-public", S_UINT, S_AT (metrics_public), 0, 1,
      DROVER_DEFAULT_METRICS_PUBLIC, NULL,
      "1 allows a non-loopback metrics address: anyone who reaches it reads the counts" },
    { "broker/status-interval", S_UINT, S_AT (status_interval), 0, 86400000,
      DROVER_DEFAULT_STATUS_INTERVAL, NULL,
      "msec between status lines in the log (pending, running, workers, probation, lost); "
      "0 logs none" },
    { "broker/log-level", S_STRING, S_AT (log_level), 0, 0,
      0, DROVER_DEFAULT_LOG_LEVEL,
      "least severe log lines written: error, warning, notice, info or debug (-v: debug); "
      "SIGHUP applies a new one" },
    { "broker/max-message", S_UINT, S_AT (max_message), 1024, 64 << 20,
      DROVER_DEFAULT_MAX_MESSAGE, NULL,
      "bytes, largest message accepted from a peer" },
    { "broker/hwm", S_UINT, S_AT (hwm), 100, 10000000,
      DROVER_DEFAULT_HWM, NULL,
      "messages queued per peer before the broker stops reading or sending" },
    { "broker/peer-bytes", S_UINT, S_AT (peer_bytes), 1 << 20, 4294967295u,
      DROVER_DEFAULT_PEER_BYTES, NULL,
      "bytes one peer may have waiting in the broker's receive queue (fewer messages than hwm)" },
    { "broker/silent-timeout", S_UINT, S_AT (silent_timeout), 100, 3600000,
      DROVER_DEFAULT_SILENT_TIMEOUT, NULL,
      "msec a new connection may say nothing valid before it is closed (its place also goes "
      "to a newcomer first when none is free)" },
    { "broker/member-reserve", S_UINT, S_AT (member_reserve), 0, 90,
      DROVER_DEFAULT_MEMBER_RESERVE, NULL,
      "percent of the connections the descriptors allow kept for registered workers and "
      "admin keys: other peers never take them" },
    { "broker/max-per-address", S_UINT, S_AT (max_per_address), 0, 4294967295u,
      DROVER_DEFAULT_MAX_PER_ADDRESS, NULL,
      "connections from one IP address at most, besides registered workers and admin keys; "
      "0: no cap" },
    { "broker/state-dir", S_STRING, S_AT (state_dir), 0, 0,
      0, DROVER_DEFAULT_STATE_DIR,
      "directory where the broker keeps its state (made if missing; one broker at a time)" },
    { "broker/durability", S_STRING, S_AT (durability), 0, 0,
      0, DROVER_DEFAULT_DURABILITY,
      "full: nothing acknowledged is lost; batch: commits every commit-every msec, a crash "
      "loses what was acknowledged since the last; off: memory only, nothing survives" },
    { "broker/commit-every", S_UINT, S_AT (commit_every), 1, 60000,
      DROVER_DEFAULT_COMMIT_EVERY, NULL,
      "msec between commits with durability batch" },
    { "broker/cpus", S_STRING, S_AT (cpus), 0, 0,
      0, DROVER_DEFAULT_CPUS,
      "CPUs the broker's threads run on, a list such as 0 or 2-3 (\"\" any): one CPU of its "
      "own gives the shortest round trip (docs/performance.md)" },
    { "security/key", S_STRING, S_AT (security_key), 0, 0,
      0, DROVER_DEFAULT_SECURITY_KEY,
      "the broker's CURVE key pair (NAME.key, with NAME.key_secret beside it, mode 0600); "
      "set, every endpoint requires CURVE and any address may be bound" },
    { "security/keys", S_STRING, S_AT (security_keys), 0, 0,
      0, DROVER_DEFAULT_SECURITY_KEYS,
      "directory of public keys (*.key), one subdirectory per role: workers/ speak the worker "
      "dialogue, clients/ submit, wait, list and cancel their own tasks, admins/ also cancel "
      "any task and hold, drain, resume workers" },
    { "security/handshake", S_UINT, S_AT (handshake), 100, 600000,
      DROVER_DEFAULT_HANDSHAKE, NULL,
      "msec a new connection has to finish its handshake before it is closed" },
    { "health/heartbeat", S_UINT, S_AT (heartbeat), 50, 60000,
      DROVER_DEFAULT_HEARTBEAT, NULL,
      "msec between worker heartbeats" },
    { "health/lost-after", S_UINT, S_AT (lost_after), 200, 3600000,
      DROVER_DEFAULT_LOST_AFTER, NULL,
      "msec without traffic from a worker before it is LOST" },
    { "health/max-workers", S_UINT, S_AT (max_workers), 1, 1000000,
      DROVER_DEFAULT_MAX_WORKERS, NULL,
      "registered workers at most" },
    { "health/heartbeat-rate", S_UINT, S_AT (heartbeat_rate), 0, 1000000,
      DROVER_DEFAULT_HEARTBEAT_RATE, NULL,
      "heartbeats a second the broker aims at: a worker is told the interval "
      "max(heartbeat, workers x 1000 / rate) msec and is LOST after lost-after times "
      "interval / heartbeat of silence; 0: every worker heartbeat msec" },
    { "health/grace", S_UINT, S_AT (grace), 0, 3600000,
      DROVER_DEFAULT_GRACE, NULL,
      "msec after the broker starts or becomes leader in which no worker is declared "
      "LOST; 0: lost-after + min(heartbeat, 5000), the workers' reconnect jitter window" },
    { "health/stats-period", S_UINT, S_AT (stats_period), 0, 60000,
      DROVER_DEFAULT_STATS_PERIOD, NULL,
      "msec the workers' heartbeat stats (load, memory, disk: what drover workers shows) "
      "are held back at most and said in one batch; 0: at once. Liveness does not wait" },
    { "health/min-release", S_STRING, S_AT (min_release), 0, 0,
      0, DROVER_DEFAULT_MIN_RELEASE,
      "oldest worker release registered, MAJOR.MINOR[.PATCH]: an older agent, or one that "
      "says no release (level 1), is refused and exits; \"\" any release of a level this "
      "broker serves" },
    { "probation/timeout", S_UINT, S_AT (probation_timeout), 10, 3600000,
      DROVER_DEFAULT_PROBATION_TIMEOUT, NULL,
      "msec a worker stays on probation after a transport failure" },
    { "schedq/max-shelve", S_UINT, S_AT (max_shelve), 1, 10000000,
      DROVER_DEFAULT_MAX_SHELVE, NULL,
      "requests that fit nowhere one scheduling pass looks past" },
    { "schedq/min-disk-free", S_UINT, S_AT (min_disk_free), 0, 16777216,
      DROVER_DEFAULT_MIN_DISK_FREE, NULL,
      "MiB free on a worker's work directory filesystem under which it gets no new work (0: none)" },
    { "schedq/max-leases", S_UINT, S_AT (max_leases), 0, 1000,
      DROVER_DEFAULT_MAX_LEASES, NULL,
      "idle workers whose free capacity is lent to assign at once, so that a task submitted to an empty queue is offered without a scheduling round trip (0: none)" },
    { "schedq/keep-gone", S_UINT, S_AT (keep_gone), 0, 604800000,
      DROVER_DEFAULT_KEEP_GONE, NULL,
      "msec a worker that was lost or left stays listed (drover workers, status), with why" },
    { "schedq/max-gone", S_UINT, S_AT (max_gone), 0, 10000,
      DROVER_DEFAULT_MAX_GONE, NULL,
      "workers that were lost or left listed at most (the oldest go first; 0: none)" },
    { "schedq/affinity-wait", S_UINT, S_AT (affinity_wait), 0, 3600000,
      DROVER_DEFAULT_AFFINITY_WAIT, NULL,
      "msec a task submitted with an affinity key waits for the first worker in its order "
      "(even if full) before the next in order with room may take it" },
    { "share/accounts", S_STRING, S_AT (share_accounts), 0, 0,
      0, DROVER_DEFAULT_SHARE_ACCOUNTS,
      "owners grouped into accounts, \"team-a:alice,bob;team-b:carol\" (\"\" none: each "
      "owner is an account of its own)" },
    { "share/weights", S_STRING, S_AT (share_weights), 0, 0,
      0, DROVER_DEFAULT_SHARE_WEIGHTS,
      "shares of accounts or owners, \"team-a=3,team-b=1,alice=2\" (1 each if not given)" },
    { "share/quotas", S_STRING, S_AT (share_quotas), 0, 0,
      0, DROVER_DEFAULT_SHARE_QUOTAS,
      "running and queued quotas, \"team-a:procs=40,mem=64G,gpu=4,queued=1000;alice:procs=8\"" },
    { "sched/preemption", S_STRING, S_AT (preemption), 0, 0,
      0, DROVER_DEFAULT_PREEMPTION,
      "on: stop preemptible tasks of others to start a task of higher priority or below its "
      "share (they run again at their place); off: never" },
    { "sched/preempt-max", S_UINT, S_AT (preempt_max), 1, 1000,
      DROVER_DEFAULT_PREEMPT_MAX, NULL,
      "tasks one pass may stop to make room, at most" },
    { "assign/ack-timeout", S_UINT, S_AT (ack_timeout), 10, 3600000,
      DROVER_DEFAULT_ACK_TIMEOUT, NULL,
      "msec for a worker to acknowledge an offer" },
    { "assign/offer-ahead", S_UINT, S_AT (offer_ahead), 0, DROVER_AHEAD_MAX,
      DROVER_DEFAULT_OFFER_AHEAD, NULL,
      "offers a worker that holds them (level 9) may get beyond its free procs, each started "
      "there as a task ends, while one owner's work at one priority waits; 0 none" },
    { "assign/lost-retries", S_UINT, S_AT (lost_retries), 0, 1000,
      DROVER_DEFAULT_LOST_RETRIES, NULL,
      "worker losses a task survives before it fails as poison" },
    { "assign/max-queued", S_UINT, S_AT (max_queued), 1, 100000000,
      DROVER_DEFAULT_MAX_QUEUED, NULL,
      "tasks not yet final, at most; past it SUBMIT is refused" },
    { "assign/max-queued-bytes", S_UINT, S_AT (max_queued_bytes), 2 << 20, 4294967295u,
      DROVER_DEFAULT_MAX_QUEUED_BYTES, NULL,
      "bytes of bodies and labels of tasks not yet final; past it SUBMIT is refused" },
    { "assign/keep-finished", S_UINT, S_AT (keep_finished), 0, 100000000,
      DROVER_DEFAULT_KEEP_FINISHED, NULL,
      "finished tasks whose results are kept for WAIT" },
    { "assign/keep-finished-bytes", S_UINT, S_AT (keep_finished_bytes), 0, 4294967295u,
      DROVER_DEFAULT_KEEP_FINISHED_BYTES, NULL,
      "bytes finished tasks hold for WAIT (stdout, stderr, body, labels); past it the oldest "
      "are dropped, and a WAIT for one is answered EXPIRED" },
    { "assign/restart-grace", S_UINT, S_AT (restart_grace), 0, 3600000,
      DROVER_DEFAULT_RESTART_GRACE, NULL,
      "msec after a restart for workers to report the attempts they run; an attempt nobody "
      "reports by then runs again" },
    { "store/history-count", S_UINT, S_AT (history_count), 0, 4294967295u,
      DROVER_DEFAULT_HISTORY_COUNT, NULL,
      "finished tasks kept in the state directory (the newest), with their output" },
    { "store/history-age", S_UINT, S_AT (history_age), 0, 4294967295u,
      DROVER_DEFAULT_HISTORY_AGE, NULL,
      "seconds a finished task is kept in the state directory" },
    { "store/history-events", S_UINT, S_AT (history_events), 0, 4294967295u,
      DROVER_DEFAULT_HISTORY_EVENTS, NULL,
      "events kept in the state directory for drover events --since" },
    { "service/term", S_UINT, S_AT (service.term), 100, 86400000,
      DROVER_DEFAULT_SERVICE_TERM, NULL,
      "msec between the reconciler's terms (each gathers what every worker runs)" },
    { "service/gather-timeout", S_UINT, S_AT (service.gather_timeout), 10, 600000,
      DROVER_DEFAULT_SERVICE_GATHER_TIMEOUT, NULL,
      "msec a term waits for every worker's answer; a silent one: nothing removed that term" },
    { "service/restart-delay", S_UINT, S_AT (service.restart_delay), 0, 86400000,
      DROVER_DEFAULT_SERVICE_RESTART_DELAY, NULL,
      "msec before an exited replica restarts (a service's own delay wins), doubling while "
      "it keeps exiting quickly" },
    { "service/max-restart-delay", S_UINT, S_AT (service.max_restart_delay), 0, 86400000,
      DROVER_DEFAULT_SERVICE_MAX_RESTART_DELAY, NULL,
      "msec, the restart delay's doubling stops there" },
    { "service/stable-after", S_UINT, S_AT (service.stable_after), 0, 86400000,
      DROVER_DEFAULT_SERVICE_STABLE_AFTER, NULL,
      "msec a replica must run for its exit not to count as a quick one (a crash)" },
    { "service/crash-warn", S_UINT, S_AT (service.crash_warn), 1, 1000000,
      DROVER_DEFAULT_SERVICE_CRASH_WARN, NULL,
      "quick exits in a row after which a service is CRASHING (reported, still restarted)" },
    { "service/max-stop-percent", S_UINT, S_AT (service.max_stop_percent), 0, 100,
      DROVER_DEFAULT_SERVICE_MAX_STOP_PERCENT, NULL,
      "percent of running replicas a term may stop unasked (spread, duplicates); past it, "
      "it stops none" },
    { "service/max-services", S_UINT, S_AT (service.max_services), 1, 10000,
      DROVER_DEFAULT_SERVICE_MAX_SERVICES, NULL,
      "services defined at most" },
    { "service/max-replicas", S_UINT, S_AT (service.max_replicas), 1, 10000000,
      DROVER_DEFAULT_SERVICE_MAX_REPLICAS, NULL,
      "replicas over all services at most" },
    { "service/rebalance-moves", S_UINT, S_AT (service.rebalance_moves), 0, 100000,
      DROVER_DEFAULT_SERVICE_REBALANCE_MOVES, NULL,
      "replicas a term moves at most toward a better worker of their rendezvous order "
      "(started there before stopped here); 0 turns rebalancing off" },
    { "ha/etcd", S_STRING, S_AT (ha.etcd), 0, 0,
      0, DROVER_DEFAULT_HA_ETCD,
      "etcd endpoints (http://HOST:PORT, comma-separated): set, brokers elect a leader there "
      "and the others stand by; \"\" runs this broker alone" },
    { "ha/name", S_STRING, S_AT (ha.name), 0, 0,
      0, DROVER_DEFAULT_HA_NAME,
      "this broker's name among its peers (unique); \"\" is the host name" },
    { "ha/advertise", S_STRING, S_AT (ha.advertise), 0, 0,
      0, DROVER_DEFAULT_HA_ADVERTISE,
      "the endpoint workers and clients reach this broker on, given in redirects; "
      "\"\" is broker/endpoint" },
    { "ha/prefix", S_STRING, S_AT (ha.prefix), 0, 0,
      0, DROVER_DEFAULT_HA_PREFIX,
      "etcd key prefix of this cluster: brokers with the same prefix elect one leader" },
    { "ha/lease-ttl", S_UINT, S_AT (ha.lease_ttl), 2000, 600000,
      DROVER_DEFAULT_HA_LEASE_TTL, NULL,
      "msec a broker's etcd session lives without renewal: a dead leader is replaced after "
      "about this long; a leader that cannot renew stops serving before it ends" },
    { "ha/queues", S_STRING, S_AT (ha.queues), 0, 0,
      0, DROVER_DEFAULT_HA_QUEUES,
      "named queues this broker offers, Q=PORT comma-separated: each a broker of its own on "
      "PORT (its events on PORT+1) serving while ha/strategy places Q here; \"\" none" },
    { "ha/strategy", S_STRING, S_AT (ha.strategy), 0, 0,
      0, DROVER_DEFAULT_HA_STRATEGY,
      "how the leader places named queues on brokers: leader (all on it), spread "
      "(rendezvous hashing over the brokers offering each) or rr (dealt in turn)" },
    { "ha/watch", S_STRING, S_AT (ha.watch), 0, 0,
      0, DROVER_DEFAULT_HA_WATCH,
      "on: watch etcd, reading the keys at each change (and every ha/safety-check); off: "
      "poll them every min(lease-ttl/4, ha/check-max)" },
    { "ha/safety-check", S_UINT, S_AT (ha.safety_check), 100, 600000,
      DROVER_DEFAULT_HA_SAFETY_CHECK, NULL,
      "msec between reads of etcd while its watch is up (a watch may miss nothing, this "
      "is a safety net); at least ha/check-max" },
    { "ha/check-max", S_UINT, S_AT (ha.check_max), 10, 60000,
      DROVER_DEFAULT_HA_CHECK_MAX, NULL,
      "msec between reads of etcd at most while polling (the watch down, or ha/watch off)" },
    { "ha/retry-min", S_UINT, S_AT (ha.retry_min), 1, 60000,
      DROVER_DEFAULT_HA_RETRY_MIN, NULL,
      "msec, least wait after a failed etcd call (lease-ttl/8 within retry-min..retry-max), "
      "and the first wait before opening a broken watch again" },
    { "ha/retry-max", S_UINT, S_AT (ha.retry_max), 1, 600000,
      DROVER_DEFAULT_HA_RETRY_MAX, NULL,
      "msec, most wait after a failed etcd call, and the cap of the watch's reopening backoff" },
    { "ha/start-backoff-min", S_UINT, S_AT (ha.backoff_min), 10, 3600000,
      DROVER_DEFAULT_HA_BACKOFF_MIN, NULL,
      "msec before campaigning again after the leader's or a named queue's start failed "
      "(the database unreachable), doubling with each failure" },
    { "ha/start-backoff-max", S_UINT, S_AT (ha.backoff_max), 10, 3600000,
      DROVER_DEFAULT_HA_BACKOFF_MAX, NULL,
      "msec, the cap of that doubling" },
    { "pool/name", S_STRING, S_AT (pool.name), 0, 0,
      0, DROVER_DEFAULT_POOL_NAME,
      "the tag the pool's instances carry (a restarted broker adopts those that carry it)" },
    { "pool/driver", S_STRING, S_AT (pool.driver), 0, 0,
      0, DROVER_DEFAULT_POOL_DRIVER,
      "local: drover worker processes on this machine; command: the operator's executable "
      "(pool/command)" },
    { "pool/command", S_STRING, S_AT (pool.command), 0, 0,
      0, DROVER_DEFAULT_POOL_COMMAND,
      "the command driver's executable (create, list, tag, destroy)" },
    { "pool/worker", S_STRING, S_AT (pool.worker), 0, 0,
      0, DROVER_DEFAULT_POOL_WORKER,
      "the drover binary the local driver starts workers with; \"\" this one" },
    { "pool/local-dir", S_STRING, S_AT (pool.local_dir), 0, 0,
      0, DROVER_DEFAULT_POOL_LOCAL_DIR,
      "directory of the local driver's instances; \"\" the state directory's pool/" },
    { "pool/broker", S_STRING, S_AT (pool.broker), 0, 0,
      0, DROVER_DEFAULT_POOL_BROKER,
      "endpoint the instances' workers connect to; \"\" the broker's own" },
    { "pool/max-instances", S_UINT, S_AT (pool.max_instances), 1, 100000,
      DROVER_DEFAULT_POOL_MAX_INSTANCES, NULL,
      "live instances at most (booting ones count)" },
    { "pool/max-price", S_PRICE, S_AT (pool.max_price), 0, 0,
      DROVER_DEFAULT_POOL_MAX_PRICE, NULL,
      "total price per hour of live instances at most; 0 no limit" },
    { "pool/min-instances", S_UINT, S_AT (pool.min_instances), 0, 100000,
      DROVER_DEFAULT_POOL_MIN_INSTANCES, NULL,
      "instances kept even when idle (at most max-instances)" },
    { "pool/max-creates", S_UINT, S_AT (pool.max_creates), 1, 1000,
      DROVER_DEFAULT_POOL_MAX_CREATES, NULL,
      "creates one pass asks at most" },
    { "pool/ops-per-second", S_UINT, S_AT (pool.ops_per_second), 1, 100000,
      DROVER_DEFAULT_POOL_OPS_PER_SECOND, NULL,
      "driver operations (create, list, tag, destroy) a second at most" },
    { "pool/boot-timeout", S_UINT, S_AT (pool.boot_timeout), 100, 86400000,
      DROVER_DEFAULT_POOL_BOOT_TIMEOUT, NULL,
      "msec from create to registered; past it the instance is destroyed" },
    { "pool/idle-timeout", S_UINT, S_AT (pool.idle_timeout), 100, 86400000,
      DROVER_DEFAULT_POOL_IDLE_TIMEOUT, NULL,
      "msec idle before an instance is retired and destroyed (never below min-instances)" },
    { "pool/probe-timeout", S_UINT, S_AT (pool.probe_timeout), 100, 86400000,
      DROVER_DEFAULT_POOL_PROBE_TIMEOUT, NULL,
      "msec an instance whose worker was lost may take to come back, or whose worker "
      "registered to pass its boot probe, before it is destroyed" },
    { "pool/shutdown-timeout", S_UINT, S_AT (pool.shutdown_timeout), 100, 86400000,
      DROVER_DEFAULT_POOL_SHUTDOWN_TIMEOUT, NULL,
      "msec an instance may still be listed after its destroy before it is destroyed again" },
    { "pool/quota-backoff", S_UINT, S_AT (pool.quota_backoff), 0, 86400000,
      DROVER_DEFAULT_POOL_QUOTA_BACKOFF, NULL,
      "msec without creates after a quota error (unless an instance went away)" },
    { "pool/rate-backoff", S_UINT, S_AT (pool.rate_backoff), 0, 86400000,
      DROVER_DEFAULT_POOL_RATE_BACKOFF, NULL,
      "msec without driver operations after one was rate limited" },
    { "pool/warn-failures", S_UINT, S_AT (pool.warn_failures), 1, 1000000,
      DROVER_DEFAULT_POOL_WARN_FAILURES, NULL,
      "consecutive create failures after which the pool warns" },
    { "pool/list-interval", S_UINT, S_AT (pool.list_interval), 100, 86400000,
      DROVER_DEFAULT_POOL_LIST_INTERVAL, NULL,
      "msec between lists of the driver's instances" },
    { "pool/op-timeout", S_UINT, S_AT (pool.op_timeout), 100, 86400000,
      DROVER_DEFAULT_POOL_OP_TIMEOUT, NULL,
      "msec a driver operation may take; past it it is killed and failed" },
    { "pool/probe", S_STRING, S_AT (pool.probe), 0, 0,
      0, DROVER_DEFAULT_POOL_PROBE,
      "boot probes: auto (the local driver checks its worker, the command driver none), "
      "on (the command driver runs PROGRAM probe NAME), off (registered is enough)" },
    { "pool/probes-per-second", S_UINT, S_AT (pool.probes_per_second), 1, 100000,
      DROVER_DEFAULT_POOL_PROBES_PER_SECOND, NULL,
      "boot probes a second at most" },
    { "pool/probe-interval", S_UINT, S_AT (pool.probe_interval), 10, 86400000,
      DROVER_DEFAULT_POOL_PROBE_INTERVAL, NULL,
      "msec between two probes of one instance whose probe failed" },
    { "pool/create-backoff", S_UINT, S_AT (pool.create_backoff), 0, 86400000,
      DROVER_DEFAULT_POOL_CREATE_BACKOFF, NULL,
      "msec without creates after the second consecutive failed create, doubling with each "
      "further one; 0 none" },
    { "pool/create-backoff-max", S_UINT, S_AT (pool.create_backoff_max), 0, 86400000,
      DROVER_DEFAULT_POOL_CREATE_BACKOFF_MAX, NULL,
      "the most the create-failure backoff doubles to, msec" },
};
#define S_SETTINGS (sizeof s_settings / sizeof s_settings [0])

//  The string settings that take one of a few words
static const struct {
    const char *path;           //  "section/key"
    const char *words [6];      //  the words allowed, NULL-ended
} s_choices [] = {
    { "broker/durability", { "full", "batch", "off", NULL } },
    { "broker/log-level", { "error", "warning", "notice", "info", "debug" } },
    { "ha/strategy", { "leader", "spread", "rr", NULL } },
    { "ha/watch", { "on", "off", NULL } },
    { "pool/driver", { "local", "command", NULL } },
    { "pool/probe", { "auto", "on", "off", NULL } },
    { "sched/preemption", { "on", "off", NULL } },
};
#define S_CHOICES (sizeof s_choices / sizeof s_choices [0])

//  Check a string setting's value against the words it allows, if it has
//  a list. Returns 0, or -1 with a message naming the key and the words.
static int
s_check_choice (const s_setting_t *setting, const char *value, char **error_p)
{
    for (size_t index = 0; index < S_CHOICES; index++) {
        if (!streq (s_choices [index].path, setting->path))
            continue;
        const char *const *words = s_choices [index].words;
        for (size_t word = 0; words [word]; word++)
            if (streq (words [word], value))
                return 0;
        char list [128] = "";
        for (size_t word = 0; words [word]; word++)
            snprintf (list + strlen (list), sizeof list - strlen (list), "%s%s",
                      word? ", ": "", words [word]);
        *error_p = zsys_sprintf ("%s: '%s' is not one of %s", setting->path, value, list);
        return -1;
    }
    return 0;
}


//  Find a setting by path, or NULL
static const s_setting_t *
s_setting_find (const char *path)
{
    for (size_t index = 0; index < S_SETTINGS; index++)
        if (streq (s_settings [index].path, path))
            return &s_settings [index];
    return NULL;
}

//  Parse a price: a number, 0 or more, finite (per hour, in the
//  operator's currency). Returns 0, or -1 with a message naming path.
int
drover_config_parse_price (const char *path, const char *value, double *price_p, char **error_p)
{
    char *end;
    errno = 0;
    double price = strtod (value, &end);
    if (errno || !(isdigit ((unsigned char) *value) || *value == '.') || *end
    ||  !isfinite (price) || price < 0 || price > 1e12) {
        *error_p = zsys_sprintf ("%s: '%s' is not a price (a number, 0 or more)", path, value);
        return -1;
    }
    *price_p = price;
    return 0;
}

//  Store text into a setting after checking it; error names the key
static int
s_setting_store (drover_config_t *self, const s_setting_t *setting,
                 const char *value, char **error_p)
{
    byte *field = (byte *) self + setting->offset;
    if (setting->kind == S_STRING) {
        if (!*value && *setting->text) {
            //  Only a setting whose default is "" (unset) may be set to ""
            *error_p = zsys_sprintf ("%s: value must not be empty", setting->path);
            return -1;
        }
        if (s_check_choice (setting, value, error_p))
            return -1;
        if (streq (setting->path, "health/min-release") && *value
        &&  !drover_semver_plain (value)) {
            *error_p = zsys_sprintf ("%s: '%s' is not a release: MAJOR.MINOR or "
                                     "MAJOR.MINOR.PATCH, e.g. 0.6.0", setting->path, value);
            return -1;
        }
        if (streq (setting->path, "broker/cpus") && drover_cpus_check (value, error_p)) {
            char *why = *error_p;
            *error_p = zsys_sprintf ("%s: %s", setting->path, why);
            zstr_free (&why);
            return -1;
        }
        char **string_p = (char **) field;
        zstr_free (string_p);
        *string_p = strdup (value);
        return 0;
    }
    if (setting->kind == S_PRICE)
        return drover_config_parse_price (setting->path, value, (double *) field, error_p);
    char *end;
    errno = 0;
    unsigned long long number = strtoull (value, &end, 10);
    if (errno || !isdigit ((unsigned char) *value) || *end
    ||  number < setting->min || number > setting->max) {
        *error_p = zsys_sprintf ("%s: '%s' is not a whole number from %u to %u",
                                 setting->path, value, setting->min, setting->max);
        return -1;
    }
    *(uint32_t *) field = (uint32_t) number;
    return 0;
}

//  Create settings holding every default
drover_config_t *
drover_config_new (void)
{
    drover_config_t *self = (drover_config_t *) zmalloc (sizeof (drover_config_t));
    for (size_t index = 0; index < S_SETTINGS; index++) {
        const s_setting_t *setting = &s_settings [index];
        byte *field = (byte *) self + setting->offset;
        if (setting->kind == S_STRING) {
            assert (setting->text);
            *(char **) field = strdup (setting->text);
            assert (*(char **) field);
        }
        else
        if (setting->kind == S_PRICE)
            *(double *) field = setting->number;
        else {
            //  A default out of its own range is our bug
            assert (setting->number >= setting->min && setting->number <= setting->max);
            *(uint32_t *) field = setting->number;
        }
    }
    return self;
}

//  Copy settings: every value, pool types too
drover_config_t *
drover_config_dup (drover_config_t *self)
{
    assert (self);
    drover_config_t *copy = (drover_config_t *) zmalloc (sizeof (drover_config_t));
    memcpy (copy, self, sizeof (drover_config_t));
    for (size_t index = 0; index < S_SETTINGS; index++)
        if (s_settings [index].kind == S_STRING) {
            char **field = (char **) ((byte *) copy + s_settings [index].offset);
            *field = strdup (*field);
            assert (*field);
        }
    for (size_t index = 0; index < copy->pool.ntypes; index++) {
        if (copy->pool.types [index].labels) {
            copy->pool.types [index].labels = strdup (copy->pool.types [index].labels);
            assert (copy->pool.types [index].labels);
        }
        if (copy->pool.types [index].devices) {
            copy->pool.types [index].devices = strdup (copy->pool.types [index].devices);
            assert (copy->pool.types [index].devices);
        }
    }
    return copy;
}

//  Destroy settings
void
drover_config_destroy (drover_config_t **self_p)
{
    assert (self_p);
    drover_config_t *self = *self_p;
    if (self) {
        for (size_t index = 0; index < S_SETTINGS; index++)
            if (s_settings [index].kind == S_STRING)
                zstr_free ((char **) ((byte *) self + s_settings [index].offset));
        for (size_t index = 0; index < self->pool.ntypes; index++) {
            zstr_free (&self->pool.types [index].labels);
            zstr_free (&self->pool.types [index].devices);
        }
        free (self);
        *self_p = NULL;
    }
}

//  Write bytes as a person reads them, in the largest unit of 1024 below it
void
drover_config_print_size (uint64_t bytes, char *text, size_t size)
{
    static const char *units [] = { "KiB", "MiB", "GiB", "TiB" };
    if (bytes < 1024) {
        snprintf (text, size, "%" PRIu64 " bytes", bytes);
        return;
    }
    double value = (double) bytes / 1024;
    int unit = 0;
    while (value >= 1024 && unit < 3) {
        value /= 1024;
        unit++;
    }
    snprintf (text, size, "%.1f %s", value, units [unit]);
}

//  Parse a size: digits with an optional K, M, G or T suffix (powers of
//  1024), an optional trailing B
int
drover_config_parse_size (const char *text, uint64_t *bytes_p)
{
    if (!text || !isdigit ((unsigned char) *text))
        return -1;
    errno = 0;
    char *end;
    unsigned long long value = strtoull (text, &end, 10);
    if (errno)
        return -1;
    int shift = 0;
    switch (toupper ((unsigned char) *end)) {
        case 'K': shift = 10; end++; break;
        case 'M': shift = 20; end++; break;
        case 'G': shift = 30; end++; break;
        case 'T': shift = 40; end++; break;
    }
    if (toupper ((unsigned char) *end) == 'B')
        end++;
    if (*end || value == 0 || value > (UINT64_MAX >> shift))
        return -1;
    *bytes_p = (uint64_t) value << shift;
    return 0;
}

//  Set one value by path from text
int
drover_config_set (drover_config_t *self, const char *path, const char *value,
                   char **error_p)
{
    assert (self);
    if (strncmp (path, "pool/type/", 10) == 0)
        return drover_poolconfig_set_type (&self->pool, path, value, error_p);
    const s_setting_t *setting = s_setting_find (path);
    if (!setting) {
        *error_p = zsys_sprintf ("%s: no such setting", path);
        return -1;
    }
    return s_setting_store (self, setting, value, error_p);
}

//  Set one value from "section/key=value"
int
drover_config_set_assignment (drover_config_t *self, const char *assignment, char **error_p)
{
    const char *equals = strchr (assignment, '=');
    if (!equals) {
        *error_p = zsys_sprintf ("%s: expected SECTION/KEY=VALUE", assignment);
        return -1;
    }
    char *path = strndup (assignment, (size_t) (equals - assignment));
    assert (path);
    int rc = drover_config_set (self, path, equals + 1, error_p);
    free (path);
    return rc;
}

//  Set a node of a loaded file: a leaf is path = value; a node with
//  children (pool/type/NAME/KEY) is walked down
static int
s_load_node (drover_config_t *self, zconfig_t *node, const char *path, const char *filename,
             char **error_p)
{
    if (zconfig_child (node) && strncmp (path, "pool/type", 9) == 0) {
        int rc = 0;
        for (zconfig_t *child = zconfig_child (node); child && rc == 0;
             child = zconfig_next (child)) {
            char *below = zsys_sprintf ("%s/%s", path, zconfig_name (child));
            rc = s_load_node (self, child, below, filename, error_p);
            zstr_free (&below);
        }
        return rc;
    }
    char *error = NULL;
    const char *value = zconfig_value (node);
    int rc = drover_config_set (self, path, value? value: "", &error);
    if (rc) {
        *error_p = zsys_sprintf ("%s: %s", filename, error);
        zstr_free (&error);
    }
    return rc;
}

//  Add one more reason to *error_p, on a line of its own (reasons are
//  collected, so a file with two mistakes says both)
void
drover_config_add_error (char **error_p, char **reason_p)
{
    if (!*reason_p)
        return;
    if (*error_p) {
        char *longer = zsys_sprintf ("%s\n%s", *error_p, *reason_p);
        zstr_free (error_p);
        zstr_free (reason_p);
        *error_p = longer;
    }
    else {
        *error_p = *reason_p;
        *reason_p = NULL;
    }
}

//  Load a ZPL file: every leaf two levels down is section/key = value,
//  and pool/type/NAME/KEY four levels down; every key is tried, and every
//  mistake said, one a line
int
drover_config_load (drover_config_t *self, const char *filename, char **error_p)
{
    assert (self);
    zconfig_t *root = zconfig_load (filename);
    if (!root) {
        *error_p = zsys_sprintf ("%s: cannot read or parse this file", filename);
        return -1;
    }
    int rc = 0;
    char *errors = NULL;
    for (zconfig_t *section = zconfig_child (root); section;
         section = zconfig_next (section)) {
        if (!zconfig_child (section) && zconfig_value (section) && *zconfig_value (section)) {
            char *error = zsys_sprintf ("%s: '%s' is a section, not a key",
                                        filename, zconfig_name (section));
            drover_config_add_error (&errors, &error);
            rc = -1;
        }
        for (zconfig_t *key = zconfig_child (section); key; key = zconfig_next (key)) {
            char *path = zsys_sprintf ("%s/%s", zconfig_name (section), zconfig_name (key));
            char *error = NULL;
            if (s_load_node (self, key, path, filename, &error)) {
                drover_config_add_error (&errors, &error);
                rc = -1;
            }
            zstr_free (&error);
            zstr_free (&path);
        }
    }
    zconfig_destroy (&root);
    if (rc)
        *error_p = errors;
    else
        zstr_free (&errors);
    return rc;
}

//  Print every setting as commented ZPL, a section line before each group
void
drover_config_print (drover_config_t *self, FILE *stream)
{
    assert (self);
    const char *previous = NULL;
    for (size_t index = 0; index < S_SETTINGS; index++) {
        const s_setting_t *setting = &s_settings [index];
        size_t length = strchr (setting->path, '/') - setting->path;
        if (!previous || strncmp (previous, setting->path, length + 1))
            fprintf (stream, "%.*s\n", (int) length, setting->path);
        previous = setting->path;
        byte *field = (byte *) self + setting->offset;
        if (setting->kind == S_STRING)
            fprintf (stream, "    %s = \"%s\"", setting->path + length + 1, *(char **) field);
        else
        if (setting->kind == S_PRICE)
            fprintf (stream, "    %s = %g", setting->path + length + 1, *(double *) field);
        else
            fprintf (stream, "    %s = %u", setting->path + length + 1, *(uint32_t *) field);
        fprintf (stream, "    #  %s\n", setting->comment);
    }
    drover_poolconfig_print_types (&self->pool, stream);
}

//  Return the path of the setting at index in the table's order, or NULL
//  past the last (drover_configcheck walks them)
const char *
drover_config_path (size_t index)
{
    return index < S_SETTINGS? s_settings [index].path: NULL;
}

//  Tell whether the setting at index holds its default value: one that
//  does not cannot be meant to do nothing (a printed config, all
//  defaults, can)
bool
drover_config_is_default (drover_config_t *self, size_t index)
{
    assert (self);
    assert (index < S_SETTINGS);
    const s_setting_t *setting = &s_settings [index];
    const byte *field = (const byte *) self + setting->offset;
    if (setting->kind == S_STRING)
        return streq (*(char *const *) field, setting->text);
    if (setting->kind == S_PRICE)
        return *(const double *) field == (double) setting->number;
    return *(const uint32_t *) field == setting->number;
}

//  Tell whether a host names the loopback interface
static bool
s_host_is_loopback (const char *host, size_t length)
{
    if (length == 9 && memcmp (host, "localhost", 9) == 0)
        return true;
    if (length == 5 && memcmp (host, "[::1]", 5) == 0)
        return true;
    if (length < 4 || memcmp (host, "127.", 4) != 0)
        return false;
    for (size_t index = 4; index < length; index++)
        if (!isdigit ((unsigned char) host [index]) && host [index] != '.')
            return false;
    return true;
}

//  Check an endpoint's transport and, unless insecure, its host
int
drover_config_check_endpoint (const char *endpoint, bool insecure, char **error_p)
{
    if (strncmp (endpoint, "ipc://", 6) == 0 && endpoint [6])
        return 0;
    if (strncmp (endpoint, "tcp://", 6) != 0) {
        *error_p = zsys_sprintf ("%s: endpoint must be tcp://HOST:PORT or ipc://PATH", endpoint);
        return -1;
    }
    const char *host = endpoint + 6;
    const char *colon = strrchr (host, ':');
    if (!colon || colon == host || !colon [1]) {
        *error_p = zsys_sprintf ("%s: endpoint must be tcp://HOST:PORT", endpoint);
        return -1;
    }
    if (!insecure && !s_host_is_loopback (host, colon - host)) {
        *error_p = zsys_sprintf (
            "%s: refusing a non-loopback address without CURVE: give the broker a key pair"
            " and keys (--key, --keys), or say --insecure if anyone who can reach it may"
            " run commands on the workers",
            endpoint);
        return -1;
    }
    return 0;
}

//  Check a metrics address (HOST:PORT) and, unless public, its host
int
drover_config_check_metrics (const char *address, bool public_, char **error_p)
{
    if (!*address)
        return 0;               //  none served
    const char *colon = strrchr (address, ':');
    char *end = NULL;
    long port = colon? strtol (colon + 1, &end, 10): 0;
    if (!colon || colon == address || !colon [1] || *end || port < 1 || port > 65535) {
        *error_p = zsys_sprintf ("broker/metrics: %s: must be HOST:PORT, e.g. 127.0.0.1:9464",
                                 address);
        return -1;
    }
    if (!public_ && !s_host_is_loopback (address, colon - address)) {
        *error_p = zsys_sprintf (
            "broker/metrics: %s: refusing a non-loopback address: anyone who reaches it reads"
            " the counts; set broker/metrics-public = 1 to serve it there", address);
        return -1;
    }
    return 0;
}

//  Tell whether self and other hold different values at index (a reload
//  compares the running settings with the file's)
bool
drover_config_differs (drover_config_t *self, drover_config_t *other, size_t index)
{
    assert (self && other);
    assert (index < S_SETTINGS);
    const s_setting_t *setting = &s_settings [index];
    const byte *mine = (const byte *) self + setting->offset;
    const byte *theirs = (const byte *) other + setting->offset;
    if (setting->kind == S_STRING)
        return !streq (*(char *const *) mine, *(char *const *) theirs);
    if (setting->kind == S_PRICE)
        return *(const double *) mine != *(const double *) theirs;
    return *(const uint32_t *) mine != *(const uint32_t *) theirs;
}

//  Set the value at index to other's
void
drover_config_take (drover_config_t *self, drover_config_t *other, size_t index)
{
    assert (self && other);
    assert (index < S_SETTINGS);
    const s_setting_t *setting = &s_settings [index];
    byte *mine = (byte *) self + setting->offset;
    const byte *theirs = (const byte *) other + setting->offset;
    if (setting->kind == S_STRING) {
        zstr_free ((char **) mine);
        *(char **) mine = strdup (*(char *const *) theirs);
        assert (*(char **) mine);
    }
    else
    if (setting->kind == S_PRICE)
        *(double *) mine = *(const double *) theirs;
    else
        *(uint32_t *) mine = *(const uint32_t *) theirs;
}

//  Tell whether two text values differ, NULL being ""
static bool
s_text_differs (const char *one, const char *two)
{
    return !streq (one? one: "", two? two: "");
}

//  Tell whether the pool's instance types differ (pool/type/NAME/...)
bool
drover_config_types_differ (drover_config_t *self, drover_config_t *other)
{
    assert (self && other);
    if (self->pool.ntypes != other->pool.ntypes)
        return true;
    for (size_t index = 0; index < self->pool.ntypes; index++) {
        const drover_pooltype_t *mine = &self->pool.types [index];
        const drover_pooltype_t *theirs = &other->pool.types [index];
        if (!streq (mine->name, theirs->name) || mine->procs != theirs->procs
        ||  mine->mem != theirs->mem || mine->price != theirs->price
        ||  s_text_differs (mine->labels, theirs->labels)
        ||  s_text_differs (mine->devices, theirs->devices))
            return true;
    }
    return false;
}
