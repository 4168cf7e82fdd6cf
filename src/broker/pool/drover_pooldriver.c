/*  =========================================================================
    drover_pooldriver - creates, lists, tags and destroys the pool's
    instances, through the `local` or the `command` driver

    This class is the dispatch to the driver the config names (each its
    own class: drover_poolcommand, drover_poollocal) and the queue of
    their finished operations (drover_poolreport), reported by
    drover_pooldriver_process.
    =========================================================================
*/

#include "drover_poolcommand.h"
#include "drover_poollocal.h"
#include "drover_msg.h"
#include <errno.h>
#include <unistd.h>

struct _drover_pooldriver_t {
    drover_poolcommand_t *command;  //  the command driver, or NULL
    drover_poollocal_t *local;      //  the local driver, or NULL
    zlistx_t *done;                 //  finished operations to report, drover_poolreport_t
};

//  The destructor the queue of reports uses
static void
s_report_destructor (void **item_p)
{
    drover_poolreport_destroy ((drover_poolreport_t **) item_p);
}


//  Make the local driver's directory path: config's, else state_dir/pool,
//  else a fresh temporary directory. Returns a fresh string or NULL.
static char *
s_local_dir (const drover_poolconfig_t *config, const char *state_dir)
{
    if (config->local_dir && *config->local_dir) {
        zsys_info ("pooldriver: driver=local dir=%s (pool/local-dir)", config->local_dir);
        return strdup (config->local_dir);
    }
    if (state_dir && *state_dir) {
        char *dir = zsys_sprintf ("%s/pool", state_dir);
        zsys_info ("pooldriver: driver=local dir=%s (in the state directory)", dir);
        return dir;
    }
    const char *tmp = getenv ("TMPDIR");
    char *dir = zsys_sprintf ("%s/drover-pool-XXXXXX", tmp && *tmp? tmp: "/tmp");
    if (!mkdtemp (dir)) {
        zstr_free (&dir);
        return NULL;
    }
    zsys_info ("pooldriver: driver=local dir=%s (a temporary directory: the broker keeps "
               "no state, a restart will not find these instances)", dir);
    return dir;
}


//  --------------------------------------------------------------------------
//  Create the driver config->driver names

drover_pooldriver_t *
drover_pooldriver_new (const drover_poolconfig_t *config, const char *broker,
                       const char *state_dir, char **error_p)
{
    assert (config);
    assert (broker);
    assert (error_p);
    *error_p = NULL;
    const char *pool = config->name? config->name: "";
    drover_pooldriver_t *self = (drover_pooldriver_t *) zmalloc (sizeof (drover_pooldriver_t));
    self->done = zlistx_new ();
    zlistx_set_destructor (self->done, s_report_destructor);
    if (config->driver && streq (config->driver, "command"))
        self->command = drover_poolcommand_new (config->command, pool, broker, config->types,
                                                config->ntypes, config->op_timeout, error_p);
    else
    if (config->driver && streq (config->driver, "local")) {
        char *dir = s_local_dir (config, state_dir);
        if (dir)
            self->local = drover_poollocal_new (dir, config->worker, pool, broker, error_p);
        else
            *error_p = zsys_sprintf ("pool/local-dir: cannot make a temporary directory: %s",
                                     strerror (errno));
        zstr_free (&dir);
    }
    else
        *error_p = zsys_sprintf ("pool/driver: '%s' is not a driver (local or command)",
                                 config->driver? config->driver: "");
    if (!self->command && !self->local) {
        assert (*error_p);
        drover_pooldriver_destroy (&self);
    }
    return self;
}


//  --------------------------------------------------------------------------
//  Destroy a driver: running commands are killed and not reported

void
drover_pooldriver_destroy (drover_pooldriver_t **self_p)
{
    assert (self_p);
    drover_pooldriver_t *self = *self_p;
    if (!self)
        return;
    drover_poolcommand_destroy (&self->command);
    drover_poollocal_destroy (&self->local);
    zlistx_destroy (&self->done);
    free (self);
    *self_p = NULL;
}


//  Start an operation with the driver there is
static void
s_start (drover_pooldriver_t *self, drover_poolaction_kind_t kind, const char *name,
         const drover_pooltype_t *type, drover_idle_behaviour_t behaviour)
{
    assert (self);
    if (self->command)
        drover_poolcommand_start (self->command, kind, name, type, behaviour, self->done);
    else
        drover_poollocal_start (self->local, kind, name, type, behaviour, self->done);
}


//  --------------------------------------------------------------------------
//  Start creating an instance of type named name with an idle behaviour

void
drover_pooldriver_create (drover_pooldriver_t *self, const drover_pooltype_t *type,
                          const char *name, drover_idle_behaviour_t behaviour)
{
    assert (type);
    assert (name);
    s_start (self, DROVER_POOL_CREATE, name, type, behaviour);
}


//  --------------------------------------------------------------------------
//  Start destroying an instance

void
drover_pooldriver_destroy_instance (drover_pooldriver_t *self, const char *name)
{
    assert (name);
    s_start (self, DROVER_POOL_DESTROY, name, NULL, DROVER_IDLE_RUN);
}


//  --------------------------------------------------------------------------
//  Start setting an instance's idle-behaviour tag

void
drover_pooldriver_tag (drover_pooldriver_t *self, const char *name,
                       drover_idle_behaviour_t behaviour)
{
    assert (name);
    s_start (self, DROVER_POOL_TAG, name, NULL, behaviour);
}


//  --------------------------------------------------------------------------
//  Start probing an instance (its boot probe)

void
drover_pooldriver_probe (drover_pooldriver_t *self, const char *name)
{
    assert (name);
    s_start (self, DROVER_POOL_PROBE, name, NULL, DROVER_IDLE_RUN);
}


//  --------------------------------------------------------------------------
//  Start listing the instances

void
drover_pooldriver_list (drover_pooldriver_t *self)
{
    s_start (self, DROVER_POOL_LIST, NULL, NULL, DROVER_IDLE_RUN);
}


//  --------------------------------------------------------------------------
//  Return how many operations are running (started, not yet reported)

size_t
drover_pooldriver_running (drover_pooldriver_t *self)
{
    assert (self);
    size_t running = zlistx_size (self->done);
    if (self->command)
        running += drover_poolcommand_running (self->command);
    return running;
}


//  --------------------------------------------------------------------------
//  Return how many poll items the driver needs now

size_t
drover_pooldriver_items (drover_pooldriver_t *self)
{
    assert (self);
    return self->command? drover_poolcommand_items (self->command):
                          drover_poollocal_items (self->local);
}


//  --------------------------------------------------------------------------
//  Fill up to max items with the fds to watch; returns how many

size_t
drover_pooldriver_fill (drover_pooldriver_t *self, zmq_pollitem_t *items, size_t max)
{
    assert (self);
    return self->command? drover_poolcommand_fill (self->command, items, max):
                          drover_poollocal_fill (self->local, items, max);
}


//  --------------------------------------------------------------------------
//  After a wait: read the items, reap, enforce op-timeouts, and report each
//  finished operation to fn. Only what finished before the first report is
//  reported now, so a callback that starts operations cannot keep us here.

void
drover_pooldriver_process (drover_pooldriver_t *self, zmq_pollitem_t *items, size_t count,
                           uint64_t now, drover_pooldone_fn *fn, void *arg)
{
    assert (self);
    assert (fn);
    if (self->command)
        drover_poolcommand_process (self->command, items, count, now, self->done);
    else
        drover_poollocal_process (self->local, items, count);
    size_t pending = zlistx_size (self->done);
    while (pending--) {
        drover_poolreport_t *report = (drover_poolreport_t *) zlistx_first (self->done);
        zlistx_detach_cur (self->done);
        fn (drover_poolreport_done (report), arg);
        drover_poolreport_destroy (&report);
    }
}


//  --------------------------------------------------------------------------
//  Return the next msec at which process must run without an fd ready

uint64_t
drover_pooldriver_next_deadline (drover_pooldriver_t *self)
{
    assert (self);
    if (zlistx_size (self->done))
        return 0;                   //  reports to hand over: now
    return self->command? drover_poolcommand_next_deadline (self->command): UINT64_MAX;
}
