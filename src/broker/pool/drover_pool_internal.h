/*  =========================================================================
    drover_pool_internal - what drover_pool.c (instances, inputs, views)
    and drover_poolplan.c (the plan, its bounds and deadlines) share; not
    for anyone else
    =========================================================================
*/

#ifndef DROVER_POOL_INTERNAL_H_INCLUDED
#define DROVER_POOL_INTERNAL_H_INCLUDED

#include "drover_pool.h"

#define DROVER_POOL_UNFIT_MAX   1024    //  unfittable shapes remembered as warned

typedef struct _s_instance_t s_instance_t;

//  One instance of the pool
struct _s_instance_t {
    char *name;                 //  instance name = worker id, key of self->byname
    int type;                   //  index in self->config.types, -1 unknown type
    char *type_name;            //  its type's name ("" if not told)
    drover_instance_state_t state;  //  its state
    drover_idle_behaviour_t behaviour;  //  its idle behaviour
    uint64_t created;           //  when created or adopted, msec
    uint64_t since;             //  when it entered its state, msec
    uint64_t last_busy;         //  when last seen running a task, 0 never
    uint64_t last_task;         //  the last task it was given, 0 none
    uint32_t tasks;             //  tasks it runs (last load report)
    uint32_t procs_used;        //  procs they take
    uint64_t mem_used;          //  memory they take, bytes
    char *why;                  //  why it is in its state
    bool lost;                  //  unknown because its worker was lost: probe timeout
    bool in_report;             //  in the last load report
    bool create_inflight;       //  CREATE said, not answered
    uint64_t known_seq;         //  seq when the driver was known to have it, 0 not yet
    bool retire_due;            //  RETIRE to say
    bool retiring;              //  RETIRE said, waiting for drover_pool_retired
    bool admin_due;             //  ADMIN (behaviour) to say
    bool tag_due;               //  TAG to say
    bool tag_inflight;          //  TAG said, not answered
    bool destroy_due;           //  DESTROY to say
    bool destroy_inflight;      //  DESTROY said, not answered
    bool destroy_failed;        //  the last DESTROY failed
    uint64_t destroy_at;        //  when the last DESTROY was said, 0 never
    uint64_t destroy_seq;       //  seq when a DESTROY finished well, 0 never
    uint64_t left_seq;          //  seq when its worker left after a DESTROY, 0 never
    bool still_listed;          //  listed by a list begun after its destroy finished
    uint64_t seen_gen;          //  the last list generation that had it
    s_instance_t *prev;         //  older instance, NULL first
    s_instance_t *next;         //  newer instance, NULL last
};

//  One demand shape of the last load report
typedef struct {
    uint32_t procs;             //  procs each task asks
    uint64_t mem;               //  memory each asks, bytes
    const char *labels;         //  into self->labels_buf
    uint32_t count;             //  tasks waiting
    int cheapest;               //  the cheapest type that fits, -1 none
} s_shape_t;

//  Capacity left on one instance, while a plan fits demand
typedef struct {
    int type;                   //  its type
    uint32_t procs;             //  procs free
    uint64_t mem;               //  memory free, bytes
} s_room_t;

struct _drover_pool_t {
    drover_poolconfig_t config;     //  settings and types (strings: only name and labels ours)
    char *prefix;                   //  names of created instances: prefix + number
    uint32_t next_number;           //  the next instance's number
    zhashx_t *byname;               //  name -> s_instance_t (not owned: s_forget frees)
    s_instance_t *oldest;           //  ordered list, oldest first
    s_instance_t *newest;           //  its last
    size_t size;                    //  instances
    zhashx_t *registered;           //  ids of registered workers that are no instance (yet)
    zhashx_t *unfit_warned;         //  shapes no type fits, already warned of
    drover_poolnote_fn *notify;     //  told state changes and warnings
    void *notify_arg;               //  its argument
    s_shape_t *shapes;              //  demand, largest procs first
    size_t nshapes;                 //  entries in shapes
    char *labels_buf;               //  the shapes' labels
    uint32_t *fits;                 //  [shape * ntypes + type]: tasks one instance takes, 0 none
    s_room_t *rooms;                //  a plan's scratch: partly filled instances coming
    size_t nrooms;                  //  entries used
    size_t rooms_max;               //  entries allocated
    uint32_t *full;                 //  a plan's scratch: [type] empty instances coming
    double tokens;                  //  token bucket of driver operations
    uint64_t tokens_at;             //  when it was last filled, msec
    uint64_t rate_until;            //  no driver operation before, msec
    uint64_t quota_until;           //  no create before (unless went_away), msec
    bool went_away;                 //  an instance went away since the quota error
    uint64_t fail_until;            //  no create before (consecutive failures), msec
    uint32_t failures;              //  consecutive create failures
    bool planned;                   //  a plan ran
    bool listed;                    //  a list finished (creates wait for the first)
    bool list_inflight;             //  LIST said, not answered
    uint64_t next_list;             //  when the next LIST is due, msec
    uint64_t list_seq;              //  seq when the LIST in flight was said
    uint64_t seq;                   //  orders events (a fake clock may not move)
    uint64_t gen;                   //  list generations
    uint64_t retry_at;              //  when creates blocked in the last plan may go
    uint64_t now;                   //  the latest now seen
    uint64_t creates;               //  creates asked
    uint64_t create_failures;       //  creates that failed
    uint64_t destroys;              //  destroys asked
};

//  drover_pool.c: tell a state change or a warning
void
    drover_pool_note (drover_pool_t *self, s_instance_t *inst, int from, int to, bool warning,
                      const char *why);

//  drover_pool.c: move an instance to a state, telling it
void
    drover_pool_set_state (drover_pool_t *self, s_instance_t *inst,
                           drover_instance_state_t state, const char *why, uint64_t now);

//  drover_pool.c: add a new instance (newest), telling it
s_instance_t *
    drover_pool_add (drover_pool_t *self, const char *name, int type, const char *type_name,
                     drover_instance_state_t state, drover_idle_behaviour_t behaviour,
                     const char *why, uint64_t now);

//  drover_pool.c: forget an instance, telling it
void
    drover_pool_forget (drover_pool_t *self, s_instance_t *inst, const char *why);

//  drover_pool.c: shut an instance down and ask its destroy
void
    drover_pool_shut (drover_pool_t *self, s_instance_t *inst, const char *why, uint64_t now);

//  drover_poolplan.c: does have ("k=v" lines) include every label of want
bool
    drover_pool_labels_include (const char *have, const char *want);

//  drover_poolplan.c: how many tasks of procs/mem fit in procs_free/mem_free
uint32_t
    drover_pool_fit (uint32_t procs_free, uint64_t mem_free, uint32_t procs, uint64_t mem);

#endif
