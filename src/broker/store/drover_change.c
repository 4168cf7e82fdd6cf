/*  =========================================================================
    drover_change - one change the store keeps: an event, and for a task
    event the task's state after it
    =========================================================================
*/

#include "drover_change.h"
#include "drover_taskrecord.h"

//  Create a change about task (0 for none) with topic; time is now
drover_change_t *
drover_change_new (const char *topic, uint64_t task)
{
    assert (topic);
    drover_change_t *self = (drover_change_t *) zmalloc (sizeof (drover_change_t));
    self->time = (uint64_t) zclock_time ();
    snprintf (self->topic, sizeof self->topic, "%s", topic);
    self->task = task;
    return self;
}

//  Destroy a change and the messages it holds; harmless on NULL
void
drover_change_destroy (drover_change_t **self_p)
{
    assert (self_p);
    drover_change_t *self = *self_p;
    if (!self)
        return;
    drover_msg_destroy (&self->submit);
    drover_taskrecord_destroy (&self->record);
    drover_msg_destroy (&self->done);
    free (self->history);
    free (self->assigned);
    free (self);
    *self_p = NULL;
}

//  Tell whether the change ends its task (SUCCEEDED, FAILED or CANCELLED)
bool
drover_change_final (const drover_change_t *self)
{
    assert (self);
    return self->task
        && (self->state == DROVER_TASK_SUCCEEDED || self->state == DROVER_TASK_FAILED
        ||  self->state == DROVER_TASK_CANCELLED);
}

//  Fill an event (as published) from the change
void
drover_change_event (const drover_change_t *self, drover_event_t *event)
{
    assert (self && event);
    memset (event, 0, sizeof *event);
    event->seq = self->seq;
    event->time = self->time;
    snprintf (event->topic, sizeof event->topic, "%s", self->topic);
    event->task = self->task;
    event->attempt = self->attempt;
    snprintf (event->worker, sizeof event->worker, "%s", self->worker);
    snprintf (event->reason, sizeof event->reason, "%s", self->reason);
}
