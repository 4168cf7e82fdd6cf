/*  =========================================================================
    drover_reload - SIGHUP: read the broker's settings again and tell
    which may change while it runs (see the header)
    =========================================================================
*/

#include "drover_reload.h"
#include "drover_brokerflags.h"
#include <signal.h>
#include <sys/signalfd.h>

struct _drover_reload_t {
    char **argv;                //  the command line the broker started with (owned)
    int argc;                   //  its length
    int fd;                     //  signalfd hearing SIGHUP
    drover_config_t *read;      //  the settings as last read (owned): the running
                                //  ones may differ where the broker fitted a value
};

//  The settings a reload applies while the broker runs: the log level
//  (the main's), the shares and preemption and schedq's others (schedq's
//  CONFIGURE), probation's timeout, the status lines' interval (metrics'). Every other keeps its value until a
//  restart: sockets, the state, the actors' bounds are made at start.
static const char *s_live [] = {
    "broker/log-level",
    "share/accounts", "share/weights", "share/quotas",
    "sched/preemption", "sched/preempt-max",
    "schedq/max-shelve", "schedq/min-disk-free", "schedq/max-leases", "schedq/keep-gone",
    "schedq/max-gone", "schedq/affinity-wait",
    "probation/timeout",
    "broker/status-interval",
    NULL
};

//  Tell whether a setting may change while the broker runs
bool
drover_reload_live (const char *path)
{
    for (size_t index = 0; s_live [index]; index++)
        if (streq (s_live [index], path))
            return true;
    return false;
}

//  Block SIGHUP in this thread and those it starts
void
drover_reload_block (void)
{
    sigset_t set;
    sigemptyset (&set);
    sigaddset (&set, SIGHUP);
    pthread_sigmask (SIG_BLOCK, &set, NULL);
}

//  Create a reload for argv, hearing SIGHUP on a signalfd
drover_reload_t *
drover_reload_new (int argc, char **argv, drover_config_t *config)
{
    sigset_t set;
    sigemptyset (&set);
    sigaddset (&set, SIGHUP);
    int fd = signalfd (-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (fd == -1) {
        zsys_error ("reload: no signalfd, SIGHUP is not heard: %s", strerror (errno));
        return NULL;
    }
    drover_reload_t *self = (drover_reload_t *) zmalloc (sizeof (drover_reload_t));
    self->fd = fd;
    self->read = drover_config_dup (config);
    self->argc = argc;
    self->argv = (char **) zmalloc ((size_t) (argc + 1) * sizeof (char *));
    for (int index = 0; index < argc; index++) {
        self->argv [index] = strdup (argv [index]);
        assert (self->argv [index]);
    }
    return self;
}

//  Destroy the reload
void
drover_reload_destroy (drover_reload_t **self_p)
{
    assert (self_p);
    drover_reload_t *self = *self_p;
    if (!self)
        return;
    for (int index = 0; index < self->argc; index++)
        free (self->argv [index]);
    free (self->argv);
    drover_config_destroy (&self->read);
    close (self->fd);
    free (self);
    *self_p = NULL;
}

//  The signalfd to watch
int
drover_reload_fd (drover_reload_t *self)
{
    assert (self);
    return self->fd;
}

//  Read every signal the signalfd holds: several SIGHUPs are one reload
bool
drover_reload_heard (drover_reload_t *self)
{
    assert (self);
    bool heard = false;
    struct signalfd_siginfo info;
    while (read (self->fd, &info, sizeof info) == (ssize_t) sizeof info)
        heard = heard || info.ssi_signo == SIGHUP;
    return heard;
}

//  Add path to the list *list_p, "a, b"
static void
s_name (char **list_p, const char *path)
{
    char *longer = zsys_sprintf ("%s%s%s", *list_p? *list_p: "", *list_p? ", ": "", path);
    zstr_free (list_p);
    *list_p = longer;
}

//  Read the settings again and compare them with running
int
drover_reload_compare (drover_reload_t *self, drover_config_t *running,
                       char **applied_p, char **restart_p, char **errors_p)
{
    assert (self && running);
    *applied_p = *restart_p = NULL;
    drover_config_t *fresh = drover_config_new ();
    optind = 1;
    if (drover_brokerflags_reread (fresh, self->argc, self->argv, errors_p)) {
        drover_config_destroy (&fresh);
        return -1;
    }
    const char *path;
    for (size_t index = 0; (path = drover_config_path (index)); index++) {
        if (!drover_config_differs (self->read, fresh, index))
            continue;
        if (drover_reload_live (path)) {
            drover_config_take (running, fresh, index);
            drover_config_take (self->read, fresh, index);
            s_name (applied_p, path);
        }
        else
            s_name (restart_p, path);
    }
    if (drover_config_types_differ (self->read, fresh))
        s_name (restart_p, "pool/type");
    drover_config_destroy (&fresh);
    return 0;
}
