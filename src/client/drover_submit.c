/*  =========================================================================
    drover_submit - a task to submit (see drover_submit.h)

    A submit is its TASK SUBMIT message (drover_client_wire.h): the setters
    write the message's fields, and sending one encodes it as it is, with
    no copy per task.
    =========================================================================
*/

#include "drover_client_wire.h"

//  Check that a key is 1..DROVER_KEY_MAX bytes of printable ASCII
static bool
s_key_valid (const char *key)
{
    size_t length = strnlen (key, DROVER_KEY_MAX + 1);
    if (length < 1 || length > DROVER_KEY_MAX)
        return false;
    for (size_t index = 0; index < length; index++)
        if ((byte) key [index] < 0x20 || (byte) key [index] > 0x7e)
            return false;
    return true;
}

//  Create a submit that runs argv
drover_submit_t *
drover_submit_new (int argc, const char **argv)
{
    if (argc < 1 || !argv)
        return NULL;
    drover_exec_t *exec = drover_exec_new ();
    drover_msg_t *msg = NULL;
    size_t size = 0;
    byte *body = NULL;
    if (drover_exec_set_argv (exec, argc, argv) == 0)
        body = drover_exec_encode (exec, &size);
    if (body) {
        msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
        msg->procs = 1;
        drover_msg_set_body (msg, body, size);
        free (body);
    }
    drover_exec_destroy (&exec);
    return msg? drover_submit_of (msg): NULL;
}

//  Destroy a submit
void
drover_submit_destroy (drover_submit_t **self_p)
{
    assert (self_p);
    drover_msg_t *msg = (drover_msg_t *) *self_p;
    drover_msg_destroy (&msg);
    *self_p = NULL;
}

//  Set the priority
void
drover_submit_set_priority (drover_submit_t *self, int32_t priority)
{
    assert (self);
    drover_submit_msg (self)->priority = priority;
}

//  Set the procs the task takes
void
drover_submit_set_procs (drover_submit_t *self, uint32_t procs)
{
    assert (self);
    drover_submit_msg (self)->procs = procs;
}

//  Set the memory the task takes, bytes
void
drover_submit_set_mem (drover_submit_t *self, uint64_t mem)
{
    assert (self);
    drover_submit_msg (self)->mem = mem;
}

//  Set the task's timeout, msec
void
drover_submit_set_timeout (drover_submit_t *self, uint32_t msec)
{
    assert (self);
    drover_submit_msg (self)->timeout = msec;
}

//  Set how many times a failed task runs again
void
drover_submit_set_retries (drover_submit_t *self, uint32_t retries)
{
    assert (self);
    drover_submit_msg (self)->retries = retries;
}

//  Add a label a worker must have
int
drover_submit_add_label (drover_submit_t *self, const char *label)
{
    assert (self);
    return drover_msg_add_label (drover_submit_msg (self), label);
}

//  Ask for the task's result without a wait, or not
void
drover_submit_set_notify (drover_submit_t *self, bool notify)
{
    assert (self);
    drover_msg_t *msg = drover_submit_msg (self);
    if (notify)
        msg->flags |= DROVER_SUBMIT_NOTIFY;
    else
        msg->flags &= ~(uint32_t) DROVER_SUBMIT_NOTIFY;
}

//  Set (or, with NULL, clear) the submit key
int
drover_submit_set_key (drover_submit_t *self, const char *key)
{
    assert (self);
    if (key && !s_key_valid (key))
        return -1;
    drover_msg_t *msg = drover_submit_msg (self);
    free (msg->key);
    msg->key = key? strdup (key): NULL;
    return 0;
}

//  Set (or, with NULL, clear) the affinity key
int
drover_submit_set_affinity (drover_submit_t *self, const char *key)
{
    assert (self);
    if (key && !s_key_valid (key))
        return -1;
    drover_msg_t *msg = drover_submit_msg (self);
    free (msg->affinity);
    msg->affinity = key? strdup (key): NULL;
    return 0;
}

//  Append an after entry of any kind (DROVER_AFTER_STEP too) to a TASK
//  SUBMIT's after list. Returns 0, or -1 past DROVER_AFTER_MAX entries.
int
drover_submit_append_after (drover_msg_t *submit, uint8_t kind, uint64_t task)
{
    assert (submit);
    if (submit->nafter >= DROVER_AFTER_MAX)
        return -1;
    //  Grown in powers of two: a submit's after list is short, mostly
    uint32_t count = submit->nafter;
    if ((count & (count - 1)) == 0) {
        uint32_t capacity = count? count * 2: 4;
        submit->after = (drover_after_t *) realloc (submit->after,
                                                    capacity * sizeof (drover_after_t));
        assert (submit->after);
    }
    submit->after [count].kind = kind;
    submit->after [count].task = task;
    submit->nafter = count + 1;
    return 0;
}

//  Wait for a task (or group) to end before this one is queued
int
drover_submit_add_after (drover_submit_t *self, int kind, uint64_t task)
{
    assert (self);
    if (kind < 0 || kind > DROVER_AFTER_KIND_MAX || task == 0)
        return -1;
    return drover_submit_append_after (drover_submit_msg (self), (uint8_t) kind, task);
}

//  Start no earlier than msec since the epoch
void
drover_submit_set_begin (drover_submit_t *self, uint64_t msec)
{
    assert (self);
    drover_submit_msg (self)->begin = msec;
}

//  Space the retries: delay msec first, doubling, at most max_delay
void
drover_submit_set_retry_delay (drover_submit_t *self, uint32_t delay, uint32_t max_delay)
{
    assert (self);
    drover_msg_t *msg = drover_submit_msg (self);
    msg->retry_delay = delay;
    msg->retry_max_delay = max_delay;
}

//  Make the submit an array of count tasks, indexes first, first + step, ...
int
drover_submit_set_array (drover_submit_t *self, uint32_t first, uint32_t step,
                         uint32_t count, uint32_t limit)
{
    assert (self);
    if (count == 0 || count > DROVER_ARRAY_MAX || step == 0)
        return -1;
    if ((uint64_t) first + (uint64_t) step * (count - 1) > UINT32_MAX)
        return -1;              //  the last index would not fit
    drover_array_spec_t *array = &drover_submit_msg (self)->array;
    array->first = first;
    array->step = step;
    array->count = count;
    array->limit = limit;
    return 0;
}

//  Name (or, with NULL or "", clear) the task's owner
int
drover_submit_set_owner (drover_submit_t *self, const char *owner)
{
    assert (self);
    drover_msg_t *msg = drover_submit_msg (self);
    if (owner && *owner && !drover_id_valid (owner))
        return -1;
    snprintf (msg->owner, sizeof msg->owner, "%s", owner? owner: "");
    return 0;
}

//  Ask count of a counted device; asking a name again sets its count
int
drover_submit_add_device (drover_submit_t *self, const char *name, uint32_t count)
{
    assert (self);
    drover_msg_t *msg = drover_submit_msg (self);
    if (!drover_devicelist_name_valid (name) || count < 1 || count > DROVER_DEVICE_COUNT_MAX)
        return -1;
    for (uint32_t index = 0; index < msg->ndevices; index++)
        if (streq (msg->devices [index].name, name)) {
            msg->devices [index].count = count;
            return 0;
        }
    if (msg->ndevices == DROVER_DEVICES_MAX)
        return -1;
    drover_device_t *device = &msg->devices [msg->ndevices++];
    snprintf (device->name, sizeof device->name, "%s", name);
    device->count = count;
    drover_devicelist_sort (msg->devices, msg->ndevices);
    return 0;
}

//  Let the broker stop the task to make room, or not
void
drover_submit_set_preemptible (drover_submit_t *self, bool preemptible)
{
    assert (self);
    drover_msg_t *msg = drover_submit_msg (self);
    if (preemptible)
        msg->flags |= DROVER_SUBMIT_PREEMPTIBLE;
    else
        msg->flags &= ~(uint32_t) DROVER_SUBMIT_PREEMPTIBLE;
}
