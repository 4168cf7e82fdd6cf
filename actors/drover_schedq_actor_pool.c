/*  =========================================================================
    drover_schedq_actor_pool - the schedq actor and the elastic pool: the pool's
    instance types (POOLTYPES), retiring and steering its instances (RETIRE,
    POOLADMIN), and the LOAD reports the pool plans from. The actor and its
    loop are drover_schedq_actor.c.
    =========================================================================
*/

#include "drover_schedq_actor_internal.h"

typedef drover_schedq_actor_self_t self_t;
typedef drover_schedq_actor_worker_t s_worker_t;

//  POOLTYPES config: the pool's settings (ours now): LOAD from now on, and
//  explain with its types
void
drover_schedq_actor_handle_pooltypes (self_t *self, zmsg_t *msg)
{
    zframe_t *frame = zmsg_pop (msg);
    assert (frame && zframe_size (frame) == sizeof (void *));
    drover_poolconfig_t *pool;
    memcpy (&pool, zframe_data (frame), sizeof pool);
    zframe_destroy (&frame);
    drover_schedq_set_pooltypes (self->sched, NULL, 0);
    drover_poolconfig_destroy (&self->pool);
    self->pool = pool;
    drover_schedq_set_pooltypes (self->sched, pool->types, pool->ntypes);
    self->load_now = true;
}

//  RETIRE worker: the pool takes it away: no new work, RETIRED once idle
//  (at once if it has no task, or is not here)
void
drover_schedq_actor_handle_retire (self_t *self, zmsg_t *msg)
{
    char *id = drover_actor_pop_string (msg);
    s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, id);
    if (worker) {
        worker->retired = true;
        worker->retired_said = false;
        drover_schedq_set_admin (self->sched, id, DROVER_ADMIN_DRAIN);
        drover_schedq_actor_check_drained (self, id);
    }
    else
        drover_outbox_say (self->outbox, "ss", "RETIRED", id);
    if (self->flags.verbose)
        zsys_debug ("schedq: worker=%s retired by the pool", id);
    zstr_free (&id);
}

//  POOLADMIN worker admin reason: the pool keeps an instance's idle
//  behaviour as the admin book entry of its worker id
void
drover_schedq_actor_handle_pooladmin (self_t *self, zmsg_t *msg)
{
    char *id = drover_actor_pop_string (msg);
    int admin = (int) drover_actor_pop_number (msg);
    char *reason = drover_actor_pop_string (msg);
    const drover_adminbook_entry_t *entry = drover_adminbook_lookup (self->book, id);
    s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, id);
    bool same = entry? entry->admin == admin && streq (entry->reason, reason)
                     : admin == DROVER_ADMIN_RUN;
    if (!same
    &&  drover_adminbook_set (self->book, id, admin, 0, reason,
                              entry && entry->admin == admin? entry->since
                                                            : (uint64_t) zclock_time ()))
        zsys_warning ("schedq: worker=%s admin=%s from the pool not kept: the book is full",
                      id, drover_admin_name (admin));
    else
    if (!same) {
        zsys_info ("schedq: worker=%s admin=%s reason=\"%s\"", id, drover_admin_name (admin),
                   reason);
        drover_schedq_actor_keep_admin (self, id);
    }
    //  A retired worker stays without new work whatever its behaviour
    if (!worker || !worker->retired)
        drover_schedq_set_admin (self->sched, id, admin);    //  -1 unless connected
    zstr_free (&reason);
    zstr_free (&id);
}

//  Tell the pool one demand shape
static void
s_add_demand (uint32_t procs, uint64_t mem, const char *labels, uint32_t count, void *arg)
{
    drover_loadreport_add_demand ((drover_loadreport_t *) arg, procs, mem, labels, count);
}

//  Say LOAD: the demand shapes waiting and every worker's load (one look
//  at each shape and each worker)
static void
s_say_load (self_t *self, int64_t now)
{
    drover_loadreport_t *report = drover_loadreport_new ();
    drover_schedq_each_demand (self->sched, s_add_demand, report);
    //  Affinity requests wait too: the pool must see them
    drover_affinity_each_demand (self->affinity, S_AFFINITY_SHAPES, s_add_demand, report);
    for (const char *id = drover_schedq_first (self->sched); id;
         id = drover_schedq_next (self->sched)) {
        drover_schedq_view_t view;
        drover_schedq_lookup (self->sched, id, &view);
        s_worker_t *worker = (s_worker_t *) zhashx_lookup (self->workers, id);
        drover_loadreport_add_worker (report, id, view.tasks, view.procs_used, view.mem_used,
                                      worker? worker->last_task: 0);
    }
    zframe_t *frame = drover_loadreport_encode (report);
    drover_outbox_say (self->outbox, "sf", "LOAD", frame);
    zframe_destroy (&frame);
    drover_loadreport_destroy (&report);
    self->load_at = now;
    self->load_due = self->load_now = false;
}

//  After a turn: say LOAD if something changed and the last was long
//  enough ago (or a worker came or went). Returns the poll timeout until
//  a LOAD held back is due, or -1.
int
drover_schedq_actor_check_load (self_t *self, bool changed, int64_t now)
{
    if (!self->pool)
        return -1;
    if (changed)
        self->load_due = true;
    if (!self->load_due && !self->load_now)
        return -1;
    if (self->load_now || now - self->load_at >= S_LOAD_EVERY) {
        s_say_load (self, now);
        return -1;
    }
    return (int) (self->load_at + S_LOAD_EVERY - now);
}
