/*  =========================================================================
    drover_adminwait - WORKER ADMIN answers held until the worker's lease
    is back (see the header)
    =========================================================================
*/

#include "drover_adminwait.h"
#include "drover_actor.h"
#include "drover_msg.h"

//  One answer that waits
typedef struct {
    char *worker;               //  the worker whose lease must come back
    zframe_t *route;            //  the requester
    uint32_t seq;               //  its request's seq
    char *text;                 //  the OK's reason
} s_wait_t;

struct _drover_adminwait_t {
    zlistx_t *waits;            //  s_wait_t, oldest first
};

//  Free one answer; the list's destructor
static void
s_wait_destroy (void **item_p)
{
    s_wait_t *wait = (s_wait_t *) *item_p;
    if (wait) {
        zstr_free (&wait->worker);
        zframe_destroy (&wait->route);
        zstr_free (&wait->text);
        free (wait);
        *item_p = NULL;
    }
}

//  Create an empty set
drover_adminwait_t *
drover_adminwait_new (void)
{
    drover_adminwait_t *self = (drover_adminwait_t *) zmalloc (sizeof (drover_adminwait_t));
    self->waits = zlistx_new ();
    zlistx_set_destructor (self->waits, s_wait_destroy);
    return self;
}

//  Destroy it and what waits
void
drover_adminwait_destroy (drover_adminwait_t **self_p)
{
    drover_adminwait_t *self = *self_p;
    if (!self)
        return;
    zlistx_destroy (&self->waits);
    free (self);
    *self_p = NULL;
}

//  Hold an OK until the worker's lease is back
void
drover_adminwait_add (drover_adminwait_t *self, const char *worker, zframe_t *route,
                      uint32_t seq, const char *text)
{
    assert (self);
    s_wait_t *wait = (s_wait_t *) zmalloc (sizeof (s_wait_t));
    wait->worker = strdup (worker);
    wait->route = zframe_dup (route);
    wait->seq = seq;
    wait->text = strdup (text);
    zlistx_add_end (self->waits, wait);
}

//  Say every OK held for worker, oldest first
size_t
drover_adminwait_answer (drover_adminwait_t *self, const char *worker,
                         drover_adminwait_fn *answer, void *arg)
{
    assert (self);
    size_t answered = 0;
    bool found = true;
    while (found) {             //  from the first again after each delete
        found = false;
        s_wait_t *wait = (s_wait_t *) zlistx_first (self->waits);
        for (; wait && !found; wait = (s_wait_t *) zlistx_next (self->waits))
            if (streq (wait->worker, worker)) {
                answer (arg, worker, wait->route, wait->seq, wait->text);
                zlistx_delete (self->waits, zlistx_cursor (self->waits));
                answered++;
                found = true;
            }
    }
    return answered;
}

//  Return how many answers wait
size_t
drover_adminwait_size (drover_adminwait_t *self)
{
    assert (self);
    return zlistx_size (self->waits);
}
