/*  =========================================================================
    drover_broker_owner - what the owner of a broker (drover_ha, drover_cell)
    calls beside start and halt: its sockets, the standby, a watched socket,
    a wake-up, a stop, the events about the broker itself
    =========================================================================
*/

#include "drover_broker_internal.h"

//  True while the actors run and the state is loaded
bool
drover_broker_serving (drover_broker_t *self)
{
    return self->loaded;
}

//  The ROUTER where workers and clients talk
zsock_t *
drover_broker_router (drover_broker_t *self)
{
    return self->router;
}

//  The protocol levels of the ROUTER's connections
drover_peerlevels_t *
drover_broker_levels (drover_broker_t *self)
{
    return self->levels;
}

//  Watch the owner's socket in the loop
void
drover_broker_watch (drover_broker_t *self, zsock_t *sock, drover_broker_watch_fn *fn, void *arg)
{
    self->watched = sock;
    self->watch_fn = fn;
    self->watch_arg = arg;
    drover_poller_set (self->poller, S_WATCH_AT, sock);
}

//  While no actor runs, fn reads the ROUTER
void
drover_broker_set_standby (drover_broker_t *self, drover_broker_watch_fn *fn, void *arg)
{
    self->standby_fn = fn;
    self->standby_arg = arg;
    drover_connwatch_start (self->connwatch, true);     //  peers connect before any actor runs
}

//  Answer QUEUES with a copy of table from now on
void
drover_broker_set_queues (drover_broker_t *self, drover_queuetable_t *table)
{
    assert (self);
    assert (table);
    drover_queuetable_t *copy = drover_queuetable_dup (table);
    drover_queuetable_destroy (&self->queues);
    self->queues = copy;
}

//  Publish an event about the broker itself (seq 0: not kept)
void
drover_broker_publish (drover_broker_t *self, const char *topic, const char *name,
                       const char *reason)
{
    drover_event_t event = { .time = (uint64_t) zclock_time () };
    snprintf (event.topic, sizeof event.topic, "%s", topic);
    snprintf (event.worker, sizeof event.worker, "%s", name);
    snprintf (event.reason, sizeof event.reason, "%s", reason);
    zframe_t *body = drover_event_encode (&event);
    drover_eventstream_publish (self->events, topic, &body, "");
    drover_poller_sent (self->poller, S_PUBLISHER_AT);
}

//  Call the watch function at mono msec at (once; 0 cancels)
void
drover_broker_wake (drover_broker_t *self, int64_t at)
{
    self->wake_at = at;
}

//  Make run return after this turn (1, with no fenced reason)
void
drover_broker_stop (drover_broker_t *self)
{
    self->stop = true;
}

//  Why the store stopped serving, or NULL
const char *
drover_broker_fenced (drover_broker_t *self)
{
    return self->fenced;
}
