/*  =========================================================================
    drover_routing - the broker's routing table: who hears each wire
    message a peer sends and each command an actor says

    The main routes by this table and by nothing else; actors/ACTORS.md's
    tables say it in words, and test_actors_doc holds them to it. The
    table is static; an instance holds its indexes by wire message id and
    by record kind, built once, so that routing a message on the hot path
    is an array lookup.
    =========================================================================
*/

#include "drover_routing.h"
#include "drover_msg.h"

//  The table's shorthand: each actor's bit, and the other ways out
#define S_HEALTH        DROVER_ROUTING_TO (DROVER_ROUTING_HEALTH)
#define S_PROBATION     DROVER_ROUTING_TO (DROVER_ROUTING_PROBATION)
#define S_SCHEDQ        DROVER_ROUTING_TO (DROVER_ROUTING_SCHEDQ)
#define S_ASSIGN        DROVER_ROUTING_TO (DROVER_ROUTING_ASSIGN)
#define S_STORE         DROVER_ROUTING_TO (DROVER_ROUTING_STORE)
#define S_METRICS       DROVER_ROUTING_TO (DROVER_ROUTING_METRICS)
#define S_POOL          DROVER_ROUTING_TO (DROVER_ROUTING_POOL)
#define S_RECONCILER    DROVER_ROUTING_TO (DROVER_ROUTING_RECONCILER)
#define S_PEER          DROVER_ROUTING_PEER
#define S_PUBLISH       DROVER_ROUTING_PUBLISH
#define S_LINK          DROVER_ROUTING_LINK
#define S_SELF          DROVER_ROUTING_SELF
#define S_COUNTS        DROVER_ROUTING_COUNTS
#define S_OTHERS        DROVER_ROUTING_OTHERS

//  The routing table: who hears each wire message a peer sends and each
//  command an actor (or the main) says. It is the one answer to "who
//  hears X" (actors/ACTORS.md says it in words; test_actors_doc checks
//  that they agree): the main routes by it
//  and by nothing else. A wire message is handed off (MSG) to one actor;
//  a command goes to every actor it names. A wire message with no row is
//  answered ERROR 415 (a status, OK or ERROR, is never answered).
//  Who may send a wire message (drover_guard checks the sender's key)
#define S_WORKERS   DROVER_ROLE_WORKER
#define S_CLIENTS   (DROVER_ROLE_CLIENT | DROVER_ROLE_ADMIN)
#define S_ADMINS    DROVER_ROLE_ADMIN
#define S_ANYONE    DROVER_ROLE_ALL

static const struct {
    int msg;                    //  a wire message's id, or 0 for a command
    const char *command;        //  a command word, or NULL for a wire message
    int targets;                //  DROVER_ROUTING_ bits: the actors that hear it, the ways
    uint8_t roles;              //  a wire message: the DROVER_ROLE_* bits any of which may send it
} s_routes [] = {
    //  Wire messages from workers and clients, and the keys that may send them
    { DROVER_MSG_WORKER_HELLO,      NULL, S_HEALTH, S_WORKERS },
    { DROVER_MSG_WORKER_HEARTBEAT,  NULL, S_HEALTH, S_WORKERS },
    { DROVER_MSG_WORKER_GOODBYE,    NULL, S_HEALTH, S_WORKERS },
    { DROVER_MSG_TASK_SUBMIT,       NULL, S_ASSIGN, S_CLIENTS },
    { DROVER_MSG_WORKFLOW_SUBMIT,   NULL, S_ASSIGN, S_CLIENTS },
    { DROVER_MSG_TASK_WAIT,         NULL, S_ASSIGN, S_CLIENTS },
    { DROVER_MSG_TASK_CANCEL,       NULL, S_ASSIGN, S_CLIENTS },    //  own tasks (assign)
    { DROVER_MSG_TASK_LIST,         NULL, S_ASSIGN, S_CLIENTS },
    { DROVER_MSG_TASK_SHOW,         NULL, S_ASSIGN, S_CLIENTS },    //  own tasks (assign)
    { DROVER_MSG_TASK_EXPLAIN,      NULL, S_ASSIGN, S_CLIENTS },    //  own tasks; queued: schedq
    { DROVER_MSG_TASK_STARTED,      NULL, S_ASSIGN, S_WORKERS },    //  assign: HEARD
    { DROVER_MSG_TASK_RESULT,       NULL, S_ASSIGN, S_WORKERS },    //  likewise
    { DROVER_MSG_WORKER_LIST,       NULL, S_SCHEDQ, S_CLIENTS },
    { DROVER_MSG_WORKER_ADMIN,      NULL, S_SCHEDQ, S_ADMINS },
    { DROVER_MSG_SHARE_ADMIN,       NULL, S_SCHEDQ, S_ADMINS },
    { DROVER_MSG_SHARE_LIST,        NULL, S_SCHEDQ, S_CLIENTS },
    { DROVER_MSG_EVENT_REPLAY,      NULL, S_STORE,  S_ADMINS },
    { DROVER_MSG_STATE_BACKUP,      NULL, S_STORE,  S_ADMINS },     //  answers when copied
    { DROVER_MSG_POOL_LIST,         NULL, S_POOL,   S_CLIENTS },    //  no pool: the main
    { DROVER_MSG_POOL_ADMIN,        NULL, S_POOL,   S_ADMINS },     //  answers (poolwire)
    { DROVER_MSG_WORKER_RUNS,       NULL, S_RECONCILER, S_WORKERS },    //  fenced there
    { DROVER_MSG_SERVICE_ADMIN,     NULL, S_RECONCILER, S_ADMINS },
    { DROVER_MSG_SERVICE_LIST,      NULL, S_RECONCILER, S_CLIENTS },
    { DROVER_MSG_PLAN,              NULL, S_RECONCILER, S_CLIENTS },
    { DROVER_MSG_QUEUES,            NULL, S_SELF,          S_ANYONE },     //  the main answers
    { DROVER_MSG_CLIENT_HELLO,      NULL, S_SELF,          S_ANYONE },     //  the main answers
    //  What every actor may say
    { 0, "SEND",      S_PEER, 0 },
    { 0, "EVENT",     S_STORE, 0 },       //  numbered and kept, then PUBLISH
    //  health
    { 0, "UP",        S_SCHEDQ | S_ASSIGN | S_PROBATION | S_POOL | S_RECONCILER, 0 },
    { 0, "LOST",      S_SCHEDQ | S_ASSIGN | S_PROBATION | S_POOL | S_RECONCILER, 0 },
    { 0, "STATS",     S_SCHEDQ, 0 },
    //  probation (PROBATION also from assign, on the link)
    { 0, "PROBATION", S_SCHEDQ, 0 },
    { 0, "CLEARED",   S_SCHEDQ, 0 },
    //  assign
    { 0, "FAILURE",   S_PROBATION, 0 },
    { 0, "SUCCESS",   S_PROBATION, 0 },
    { 0, "HEARD",     S_HEALTH, 0 },
    { 0, "QUEUE",     S_SCHEDQ | S_LINK, 0 },
    { 0, "AFFINITY",  S_SCHEDQ | S_LINK, 0 },     //  a QUEUE placed by its key
    { 0, "DEQUEUE",   S_SCHEDQ | S_LINK, 0 },
    { 0, "TAKE",      S_SCHEDQ | S_LINK, 0 },
    { 0, "FREE",      S_SCHEDQ | S_LINK, 0 },
    { 0, "RETURN",    S_SCHEDQ | S_LINK, 0 },
    //  schedq
    { 0, "ASSIGN",    S_ASSIGN | S_LINK, 0 },
    { 0, "LEASE",     S_ASSIGN | S_LINK, 0 },
    { 0, "REVOKE",    S_ASSIGN | S_LINK, 0 },
    { 0, "PLACED",    S_SCHEDQ | S_LINK, 0 },
    { 0, "SETTLED",   S_SCHEDQ | S_LINK, 0 },
    { 0, "KEEPADMIN", S_STORE, 0 },       //  an operator's setting, to keep
    { 0, "KEEPSHARE", S_STORE, 0 },       //  an admin's share setting, to keep
    { 0, "QUOTAS",    S_ASSIGN | S_LINK, 0 },     //  the share settings in force
    { 0, "PREEMPT",   S_ASSIGN | S_LINK, 0 },     //  stop a task to make room
    { 0, "LOAD",      S_POOL, 0 },        //  what waits unplaced, each worker's load
    { 0, "RETIRED",   S_POOL, 0 },        //  a retired worker is idle
    //  pool
    { 0, "RETIRE",    S_SCHEDQ, 0 },      //  no new work for an instance's worker
    { 0, "POOLADMIN", S_SCHEDQ, 0 },      //  an instance's idle behaviour, to keep
    //  the reconciler: the fleet asked of schedq (and schedq's answer, the
    //  same word), replicas started and stopped by assign, definitions kept
    { 0, "FLEET",     S_SCHEDQ | S_RECONCILER | S_OTHERS, 0 },
    { 0, "START",     S_ASSIGN, 0 },
    { 0, "STOP",      S_ASSIGN, 0 },
    { 0, "REPLICA",   S_RECONCILER, 0 },     //  assign: a replica task changed
    { 0, "KEEPSERVICE", S_STORE, 0 },
    //  assign to store: what is to be kept, and the replies that wait for it
    { 0, "CHANGE",    S_STORE, 0 },
    { 0, "REPLY",     S_STORE, 0 },
    { 0, "RESTORED",  S_STORE, 0 },
    { 0, "RECALL",    S_STORE, 0 },       //  tasks to read back from the history
    //  store
    { 0, "PUBLISH",   S_PUBLISH, 0 },
    { 0, "RESTORE",   S_ASSIGN, 0 },
    { 0, "ADMIN",     S_SCHEDQ, 0 },      //  a kept operator's setting, at start
    { 0, "SHARE",     S_SCHEDQ, 0 },      //  a kept share setting, at start
    { 0, "SERVICE",   S_RECONCILER, 0 },  //  a kept service's definition, at start
    { 0, "STATE",     S_HEALTH | S_ASSIGN, 0 },
    { 0, "LOADED",    S_ASSIGN | S_RECONCILER | S_SELF, 0 },
    { 0, "UNSAVED",   S_ASSIGN, 0 },
    { 0, "RECALLED",  S_ASSIGN, 0 },      //  a RECALL's tasks said (RESTORE)
    { 0, "FATAL",     S_SELF, 0 },
    { 0, "FENCED",    S_SELF, 0 },       //  a newer leader holds the state: stop serving
    //  the main itself: a send to a worker refused; a key gone from the keys
    { 0, "UNSENT",    S_PROBATION, 0 },
    { 0, "REVOKED",   S_HEALTH, 0 },
    //  metrics: a round of numbers, asked of each actor that keeps some
    //  (and of the main), answered to it
    { 0, "METRICS",   S_HEALTH | S_PROBATION | S_SCHEDQ | S_ASSIGN | S_POOL | S_RECONCILER
                      | S_STORE | S_COUNTS, 0 },
    { 0, "COUNTS",    S_METRICS, 0 },
};
#define S_ROUTES (sizeof s_routes / sizeof s_routes [0])

struct _drover_routing_t {
    int wire_targets [DROVER_MSG_ID_MAX + 1];   //  s_routes by wire message id
    uint8_t wire_roles [DROVER_MSG_ID_MAX + 1]; //  who may send each wire message
    int record_targets [DROVER_RECORD_KINDS];   //  s_routes by record kind
};

//  Create the indexes: who hears each wire message and each record kind
drover_routing_t *
drover_routing_new (void)
{
    drover_routing_t *self = (drover_routing_t *) zmalloc (sizeof (drover_routing_t));
    for (size_t index = 0; index < S_ROUTES; index++) {
        int msg = s_routes [index].msg;
        const char *command = s_routes [index].command;
        if (msg) {
            assert (msg <= DROVER_MSG_ID_MAX);
            //  A wire message is handed off to one actor: it owns it
            assert (__builtin_popcount (s_routes [index].targets) == 1);
            self->wire_targets [msg] = s_routes [index].targets;
            self->wire_roles [msg] = s_routes [index].roles;
        }
        for (int kind = DROVER_RECORD_MSG; kind < DROVER_RECORD_KINDS; kind++) {
            drover_record_t record = { .kind = (drover_record_kind_t) kind };
            if (command && streq (command, drover_record_word (&record)))
                self->record_targets [kind] = s_routes [index].targets;
        }
    }
    return self;
}

//  Destroy the indexes
void
drover_routing_destroy (drover_routing_t **self_p)
{
    assert (self_p);
    free (*self_p);
    *self_p = NULL;
}

//  Who hears a wire message, by its id
int
drover_routing_wire (drover_routing_t *self, int id)
{
    return id >= 0 && id <= DROVER_MSG_ID_MAX? self->wire_targets [id]: 0;
}

//  Who may send a wire message, by its id
uint8_t
drover_routing_senders (drover_routing_t *self, int id)
{
    return id >= 0 && id <= DROVER_MSG_ID_MAX? self->wire_roles [id]: 0;
}

//  Who hears a record, by its kind
int
drover_routing_record (drover_routing_t *self, drover_record_kind_t kind)
{
    assert (kind < DROVER_RECORD_KINDS);
    return self->record_targets [kind];
}

//  Who hears a command an actor (or the main) says
int
drover_routing_command (drover_routing_t *self, const char *command)
{
    assert (self);
    for (size_t index = 0; index < S_ROUTES; index++)
        if (s_routes [index].command && streq (s_routes [index].command, command))
            return s_routes [index].targets;
    return 0;
}


//  The actors' names, by index (DROVER_ROUTING_HEALTH ...)
static const char *s_actor_names [DROVER_ROUTING_ACTORS] = {
    "health", "probation", "schedq", "assign", "store", "metrics", "pool", "reconciler"
};

//  Return an actor's name, or NULL past the last
const char *
drover_routing_actor_name (size_t index)
{
    return index < DROVER_ROUTING_ACTORS? s_actor_names [index]: NULL;
}

//  Add word to a ", "-joined list
static void
s_join (char *list, size_t size, const char *word)
{
    size_t used = strlen (list);
    snprintf (list + used, size - used, "%s%s", used? ", ": "", word);
}

//  Describe a row of the routing table in words
bool
drover_routing_describe (size_t index, char *name, size_t name_size, char *hearers,
                         size_t hearers_size, char *senders, size_t senders_size)
{
    if (index >= S_ROUTES)
        return false;
    int targets = s_routes [index].targets;
    snprintf (name, name_size, "%s", s_routes [index].msg? drover_msg_name (s_routes [index].msg)
                                                            : s_routes [index].command);
    *hearers = 0;
    for (int actor = 0; actor < DROVER_ROUTING_ACTORS; actor++)
        if (targets & DROVER_ROUTING_TO (actor))
            s_join (hearers, hearers_size, s_actor_names [actor]);
    if (targets & (S_SELF | S_COUNTS))
        s_join (hearers, hearers_size, "the main");
    if (targets & S_PEER)
        s_join (hearers, hearers_size, "a peer");
    if (targets & S_PUBLISH)
        s_join (hearers, hearers_size, "the event stream");
    if (targets & S_LINK)
        s_join (hearers, hearers_size, "on the link");
    if (targets & S_OTHERS)
        s_join (hearers, hearers_size, "not the sayer");
    uint8_t roles = s_routes [index].roles;
    snprintf (senders, senders_size, "%s",
              !s_routes [index].msg? "":
              roles == S_ANYONE? "anyone":
              roles == S_CLIENTS? "clients":
              roles == S_ADMINS? "admins":
              roles == S_WORKERS? "workers": "?");
    return true;
}
