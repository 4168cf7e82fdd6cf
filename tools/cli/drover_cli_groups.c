/*  =========================================================================
    drover_cli_groups - arrays and workflows as the commands show them:
    a group's member counts in one line ("array 40: 812 of 1000 ended, 50
    running"), the names of what a task waits for, and the progress of
    the groups `drover wait` waits for (a line on stderr when a group's
    member counts change, asked at most once a second)
    =========================================================================
*/

#include "drover_cli.h"

//  Groups among the ids a wait probes, at most (one TASK SHOW each)
#define S_PROBED_MAX        64
//  Msec between two rounds of TASK SHOW
#define S_ASK_EVERY         1000

//  One group waited for
typedef struct {
    uint64_t task;              //  its id
    uint64_t counts [DROVER_TASK_STATES];   //  its members by state, as last said
} s_group_t;

struct _drover_cli_groups_t {
    drover_client_t *client;    //  a connection of its own (wait's is busy), owned
    s_group_t *groups;          //  the groups, owned
    size_t count;               //  groups
    int64_t asked;              //  msec (mono) of the last round
};

//  Name a wait ("after", "begin", ...); "" for none
const char *
drover_cli_waits_name (int waits)
{
    switch (waits) {
        case DROVER_WAITS_AFTER:    return "after";
        case DROVER_WAITS_BEGIN:    return "begin";
        case DROVER_WAITS_RETRY:    return "retry";
        case DROVER_WAITS_ARRAY:    return "array";
        case DROVER_WAITS_GROUP:    return "group";
    }
    return "";
}

//  Name an after kind as its option does
const char *
drover_cli_after_name (int kind)
{
    switch (kind & ~DROVER_AFTER_STEP) {
        case DROVER_AFTER_OK:       return "after";
        case DROVER_AFTER_ANY:      return "after-any";
        case DROVER_AFTER_FAIL:     return "after-fail";
    }
    return "?";
}

//  Describe a group's member counts in one line
void
drover_cli_group_line (uint64_t task, bool array, uint32_t members, const uint64_t *counts,
                       uint32_t limit, char *buffer, size_t size)
{
    uint64_t ended = counts [DROVER_TASK_SUCCEEDED] + counts [DROVER_TASK_FAILED]
                   + counts [DROVER_TASK_CANCELLED] + counts [DROVER_TASK_UNKNOWN];
    uint64_t running = counts [DROVER_TASK_ASSIGNED] + counts [DROVER_TASK_RUNNING];
    int length = snprintf (buffer, size, "%s %llu: %llu of %u ended, %llu running",
                           array? "array": "workflow", (unsigned long long) task,
                           (unsigned long long) ended, members, (unsigned long long) running);
    if (length > 0 && (size_t) length < size && counts [DROVER_TASK_FAILED] + counts [
        DROVER_TASK_CANCELLED])
        length += snprintf (buffer + length, size - (size_t) length, " (%llu failed, %llu "
                            "cancelled)", (unsigned long long) counts [DROVER_TASK_FAILED],
                            (unsigned long long) counts [DROVER_TASK_CANCELLED]);
    if (length > 0 && (size_t) length < size && limit)
        snprintf (buffer + length, size - (size_t) length, ", at most %u at once", limit);
}

//  Find the groups among the ids a wait waits for
drover_cli_groups_t *
drover_cli_groups_new (drover_client_t *client, const uint64_t *tasks, size_t count)
{
    if (count == 0 || count > S_PROBED_MAX || drover_client_broker_level (client) < 3)
        return NULL;            //  many ids are tasks, not groups; old brokers have none
    drover_cli_groups_t *self = (drover_cli_groups_t *) zmalloc (sizeof (drover_cli_groups_t));
    self->groups = (s_group_t *) zmalloc (count * sizeof (s_group_t));
    for (size_t at = 0; at < count; at++) {
        drover_msg_t *reply = drover_client_show (client, tasks [at]);
        if (reply && reply->info && reply->info->members)
            self->groups [self->count++].task = tasks [at];
        drover_msg_destroy (&reply);
    }
    if (self->count)
        self->client = drover_cli_connect ("wait");
    if (!self->client)
        drover_cli_groups_destroy (&self);
    return self;
}

//  Destroy; harmless on NULL
void
drover_cli_groups_destroy (drover_cli_groups_t **self_p)
{
    assert (self_p);
    drover_cli_groups_t *self = *self_p;
    if (!self)
        return;
    drover_client_destroy (&self->client);
    free (self->groups);
    free (self);
    *self_p = NULL;
}

//  Ask for each group's counts (at most once a second) and say those
//  that changed on stderr, clearing progress's bar first
void
drover_cli_groups_tick (drover_cli_groups_t *self, drover_cli_progress_t *progress)
{
    if (!self)
        return;
    int64_t now = zclock_mono ();
    if (self->asked && now - self->asked < S_ASK_EVERY)
        return;
    self->asked = now;
    for (size_t at = 0; at < self->count; at++) {
        s_group_t *group = &self->groups [at];
        drover_msg_t *reply = drover_client_show (self->client, group->task);
        const drover_taskinfo_t *info = reply? reply->info: NULL;
        if (info && info->members
        &&  memcmp (group->counts, info->member_counts, sizeof group->counts)) {
            memcpy (group->counts, info->member_counts, sizeof group->counts);
            char line [256];
            drover_cli_group_line (group->task, info->array_step > 0, info->members,
                                   info->member_counts, 0, line, sizeof line);
            if (progress)
                drover_cli_progress_clear (progress);
            fprintf (stderr, "%s\n", line);
        }
        drover_msg_destroy (&reply);
    }
}
