/*  =========================================================================
    drover_defaults - the default of every broker setting, defined once

    The settings table (drover_config.c) gives these to the broker, and each
    actor starts from them until its CONFIGURE says otherwise; the worker
    heartbeats at the broker's default until WELCOME says otherwise.
    Changing a default is one edit here, then the settings table of docs/operating.md:
    test_drover_config checks that the table, these and the config agree.
    Plain decimal literals, so that a usage text can print them (drover
    worker --help).
    =========================================================================
*/

#ifndef DROVER_DEFAULTS_H_INCLUDED
#define DROVER_DEFAULTS_H_INCLUDED

//  broker
#define DROVER_DEFAULT_ENDPOINT         "tcp://127.0.0.1:5555"  //  ROUTER for workers and clients
#define DROVER_DEFAULT_EVENTS           "tcp://127.0.0.1:5556"  //  PUB for the event stream
#define DROVER_DEFAULT_INSECURE         0           //  1 allows non-loopback endpoints
#define DROVER_DEFAULT_METRICS          ""          //  HOST:PORT of the HTTP metrics; "" serves none
#define DROVER_DEFAULT_METRICS_PUBLIC   0           //  1 allows a non-loopback metrics address
#define DROVER_DEFAULT_STATUS_INTERVAL  60000       //  msec between status lines in the log, 0 none
#define DROVER_DEFAULT_LOG_LEVEL        "info"      //  broker/log-level: debug only with -v
#define DROVER_DEFAULT_MAX_MESSAGE      4194304     //  bytes, largest message from a peer
#define DROVER_DEFAULT_HWM              100000      //  messages queued per peer
#define DROVER_DEFAULT_PEER_BYTES       1073741824  //  bytes waiting from one peer, at most
#define DROVER_DEFAULT_SILENT_TIMEOUT   10000       //  msec a connection may say nothing valid
#define DROVER_DEFAULT_MEMBER_RESERVE   10          //  percent of connections kept for workers and admins
#define DROVER_DEFAULT_MAX_PER_ADDRESS  0           //  strangers' connections from one address; 0 any
#define DROVER_DEFAULT_STATE_DIR        "drover.state"  //  where the state is kept
#define DROVER_DEFAULT_DURABILITY       "full"      //  full, batch or off
#define DROVER_DEFAULT_CPUS             ""          //  broker/cpus: any CPU
#define DROVER_DEFAULT_COMMIT_EVERY     100         //  msec between commits, durability batch

//  security
#define DROVER_DEFAULT_SECURITY_KEY     ""          //  the broker's key pair; "" runs without CURVE
#define DROVER_DEFAULT_SECURITY_KEYS    ""          //  directory of public keys: workers/, clients/, admins/
#define DROVER_DEFAULT_HANDSHAKE        5000        //  msec a connection has to finish its handshake

//  store
#define DROVER_DEFAULT_HISTORY_COUNT    1000000     //  final tasks kept on disk
#define DROVER_DEFAULT_HISTORY_AGE      604800      //  seconds a final task is kept on disk
#define DROVER_DEFAULT_HISTORY_EVENTS   10000000    //  events kept on disk

//  health
#define DROVER_DEFAULT_HEARTBEAT        1000        //  msec between worker heartbeats
#define DROVER_DEFAULT_LOST_AFTER       5000        //  msec of silence before LOST
#define DROVER_DEFAULT_MAX_WORKERS      10000       //  registered workers at most
#define DROVER_DEFAULT_HEARTBEAT_RATE   1000        //  heartbeats a second the broker aims at:
                                                    //  the interval grows past 1,000 workers
#define DROVER_DEFAULT_GRACE            0           //  msec after start or leadership with no
                                                    //  LOST; 0: lost-after + the jitter window
#define DROVER_DEFAULT_STATS_PERIOD     250         //  msec workers' stats are held back at most
#define DROVER_DEFAULT_MIN_RELEASE      ""          //  oldest worker release registered, "" any
#define DROVER_RECONNECT_JITTER_MAX     5000        //  msec a worker's re-HELLO is delayed at
                                                    //  most: a random part of min(heartbeat, this)

//  probation
#define DROVER_DEFAULT_PROBATION_TIMEOUT    30000   //  msec on probation after a failure

//  schedq
#define DROVER_DEFAULT_MAX_SHELVE       1000        //  unfit requests one pass looks past
#define DROVER_DEFAULT_MIN_DISK_FREE    100         //  MiB free under which a worker gets no work
#define DROVER_DEFAULT_MAX_LEASES       4           //  idle workers lent to assign at once
#define DROVER_DEFAULT_KEEP_GONE        3600000     //  msec a lost or left worker stays listed
#define DROVER_DEFAULT_MAX_GONE         1000        //  lost or left workers listed at most
#define DROVER_DEFAULT_SHARE_ACCOUNTS   ""          //  share/accounts: no declared account
#define DROVER_DEFAULT_SHARE_WEIGHTS    ""          //  share/weights: every weight 1
#define DROVER_DEFAULT_SHARE_QUOTAS     ""          //  share/quotas: no quota
#define DROVER_DEFAULT_PREEMPTION       "off"       //  sched/preemption: nothing is stopped
#define DROVER_DEFAULT_PREEMPT_MAX      4           //  sched/preempt-max: victims per pass

//  assign
#define DROVER_DEFAULT_ACK_TIMEOUT      5000        //  msec for a worker to take an offer
#define DROVER_DEFAULT_OFFER_AHEAD      1           //  offers a worker may hold beyond its free procs
#define DROVER_DEFAULT_LOST_RETRIES     5           //  worker losses a task survives
#define DROVER_DEFAULT_MAX_QUEUED       2000000     //  tasks not yet final, at most
#define DROVER_DEFAULT_MAX_QUEUED_BYTES 1073741824  //  their bodies and labels, bytes
#define DROVER_DEFAULT_KEEP_FINISHED    100000      //  finished tasks remembered
#define DROVER_DEFAULT_KEEP_FINISHED_BYTES  268435456   //  bytes they hold, at most
#define DROVER_DEFAULT_RESTART_GRACE    5000        //  msec for workers to report after a restart
#define DROVER_DEFAULT_WORKER_AHEAD     1           //  offers a worker holds past its free procs

//  pool (Arvados' defaults where it has one)
#define DROVER_DEFAULT_POOL_NAME        "drover"    //  the tag the pool's instances carry
#define DROVER_DEFAULT_POOL_DRIVER      "local"     //  local or command
#define DROVER_DEFAULT_POOL_COMMAND     ""          //  the command driver's executable
#define DROVER_DEFAULT_POOL_WORKER      ""          //  the local driver's drover binary, "" this one
#define DROVER_DEFAULT_POOL_LOCAL_DIR   ""          //  the local driver's instances, "" state-dir/pool
#define DROVER_DEFAULT_POOL_BROKER      ""          //  endpoint instances connect to, "" ours
#define DROVER_DEFAULT_POOL_MAX_INSTANCES   64      //  live instances at most
#define DROVER_DEFAULT_POOL_MAX_PRICE   0           //  total price per hour at most, 0 no limit
#define DROVER_DEFAULT_POOL_MIN_INSTANCES   0       //  instances kept even when idle
#define DROVER_DEFAULT_POOL_MAX_CREATES 10          //  creates one pass asks at most
#define DROVER_DEFAULT_POOL_OPS_PER_SECOND  10      //  driver operations a second at most
#define DROVER_DEFAULT_POOL_BOOT_TIMEOUT    600000  //  msec from create to registered
#define DROVER_DEFAULT_POOL_IDLE_TIMEOUT    60000   //  msec idle before retired
#define DROVER_DEFAULT_POOL_PROBE_TIMEOUT   600000  //  msec lost, or not probed, before destroyed
#define DROVER_DEFAULT_POOL_SHUTDOWN_TIMEOUT    10000   //  msec still listed after destroy
#define DROVER_DEFAULT_POOL_QUOTA_BACKOFF   60000   //  msec without creates after a quota error
#define DROVER_DEFAULT_POOL_RATE_BACKOFF    10000   //  msec without operations when rate limited
#define DROVER_DEFAULT_POOL_WARN_FAILURES   3       //  consecutive create failures warned of
#define DROVER_DEFAULT_POOL_LIST_INTERVAL   60000   //  msec between lists
#define DROVER_DEFAULT_POOL_OP_TIMEOUT  120000      //  msec a driver operation may take
#define DROVER_DEFAULT_POOL_PROBE       "auto"      //  boot probes: auto (local driver), on, off
#define DROVER_DEFAULT_POOL_PROBES_PER_SECOND   10  //  boot probes a second at most (Arvados')
#define DROVER_DEFAULT_POOL_PROBE_INTERVAL  10000   //  msec between probes of one instance
#define DROVER_DEFAULT_POOL_CREATE_BACKOFF  1000    //  msec without creates after 2 failures
#define DROVER_DEFAULT_POOL_CREATE_BACKOFF_MAX  60000   //  the most that backoff grows to

//  The reconciler (service/...)
//  Several brokers (section ha): off unless ha/etcd is set
#define DROVER_DEFAULT_HA_ETCD          ""      //  etcd endpoints; "" runs one broker alone
#define DROVER_DEFAULT_HA_NAME          ""      //  this broker's name; "" its host name
#define DROVER_DEFAULT_HA_ADVERTISE     ""      //  endpoint peers reach it on; "" broker/endpoint
#define DROVER_DEFAULT_HA_PREFIX        "/drover"   //  etcd key prefix of this cluster
#define DROVER_DEFAULT_HA_LEASE_TTL     4000    //  msec: the session lease's TTL
#define DROVER_DEFAULT_HA_QUEUES        ""      //  named queues offered; "" none
#define DROVER_DEFAULT_HA_STRATEGY      "leader"    //  queues placed all on the leader
#define DROVER_DEFAULT_HA_WATCH         "on"    //  watch etcd (on), or only poll it (off)
#define DROVER_DEFAULT_HA_SAFETY_CHECK  5000    //  msec between reads while the watch is up
#define DROVER_DEFAULT_HA_CHECK_MAX     250     //  msec between reads at most while polling
#define DROVER_DEFAULT_HA_RETRY_MIN     20      //  msec: least wait after a failed etcd call
#define DROVER_DEFAULT_HA_RETRY_MAX     1000    //  msec: most wait after a failed etcd call
#define DROVER_DEFAULT_HA_BACKOFF_MIN   1000    //  msec before a failed start is tried again
#define DROVER_DEFAULT_HA_BACKOFF_MAX   30000   //  msec: that backoff's cap (it doubles)
#define DROVER_DEFAULT_SERVICE_TERM             10000   //  msec between terms
#define DROVER_DEFAULT_SERVICE_GATHER_TIMEOUT   2000    //  msec a term waits for workers
#define DROVER_DEFAULT_SERVICE_RESTART_DELAY    1000    //  msec before an exited replica restarts
#define DROVER_DEFAULT_SERVICE_MAX_RESTART_DELAY    300000  //  msec, the doubling's cap
#define DROVER_DEFAULT_SERVICE_STABLE_AFTER     60000   //  msec run that ends a crash streak
#define DROVER_DEFAULT_SERVICE_CRASH_WARN       3       //  quick exits in a row: CRASHING
#define DROVER_DEFAULT_SERVICE_MAX_STOP_PERCENT 50      //  of running replicas, per term
#define DROVER_DEFAULT_SERVICE_MAX_SERVICES     1000    //  services defined at most
#define DROVER_DEFAULT_SERVICE_MAX_REPLICAS     100000  //  replicas over all services
#define DROVER_DEFAULT_SERVICE_REBALANCE_MOVES  10      //  moves toward the rendezvous order
                                                        //  per term, 0 none
#define DROVER_DEFAULT_AFFINITY_WAIT            2000    //  msec for the first worker in order

#endif
