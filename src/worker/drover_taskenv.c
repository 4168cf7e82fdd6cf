/*  =========================================================================
    drover_taskenv - what a task can see of its worker: the user it runs
    as and its environment

    The base is made once (and again when the user changes): five
    "NAME=value" strings the taskenv owns. Each task's environment is an
    array of borrowed pointers into the base, the agent's environment and
    the task's own entries, made per start; with no allow-list the agent's
    environment is not even read. Names are compared up to the '='. The
    three entries that say who the task is are formatted into the same
    block, after the pointers, so that the caller still frees one array.

    Becoming the tasks' user uses raw system calls: the spawner's child
    shares the worker's memory (CLONE_VM), and the C library's setuid and
    friends would signal every thread of the worker to change its ids too.
    =========================================================================
*/

#ifndef _GNU_SOURCE
#   define _GNU_SOURCE         //  getgrouplist
#endif
#include "drover_taskenv.h"
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define S_BASE_MAX      5           //  entries of the base environment

//  The prefix of the agent's own variables, never passed to a task
#define S_OWN_PREFIX    "DROVER_"

struct _drover_taskenv_t {
    char *base [S_BASE_MAX];        //  "NAME=value" of the base environment, owned
    size_t nbase;                   //  entries in base
    char **patterns;                //  allowed names, a trailing '*' for a prefix, owned
    size_t npatterns;               //  entries in patterns
    char *user;                     //  the user tasks run as by set_user, or NULL, owned
    drover_taskenv_id_t id;         //  that user's ids (change false: the agent's user)
    gid_t *groups;                  //  that user's supplementary groups, owned
};

//  Make the base environment for the user of pw (NULL: no passwd entry,
//  then HOME, USER and LOGNAME are left out)
static void
s_base_make (drover_taskenv_t *self, const struct passwd *pw)
{
    for (size_t index = 0; index < self->nbase; index++)
        zstr_free (&self->base [index]);
    self->nbase = 0;
    self->base [self->nbase++] = zsys_sprintf ("PATH=%s", DROVER_TASKENV_PATH);
    if (pw) {
        self->base [self->nbase++] = zsys_sprintf ("HOME=%s", pw->pw_dir);
        self->base [self->nbase++] = zsys_sprintf ("USER=%s", pw->pw_name);
        self->base [self->nbase++] = zsys_sprintf ("LOGNAME=%s", pw->pw_name);
    }
    self->base [self->nbase++] = zsys_sprintf ("LANG=%s", DROVER_TASKENV_LANG);
}


//  --------------------------------------------------------------------------
//  Create a task environment: the agent's user, the base environment only

drover_taskenv_t *
drover_taskenv_new (void)
{
    drover_taskenv_t *self = (drover_taskenv_t *) zmalloc (sizeof (drover_taskenv_t));
    s_base_make (self, getpwuid (geteuid ()));
    return self;
}


//  --------------------------------------------------------------------------
//  Destroy a task environment; harmless on NULL

void
drover_taskenv_destroy (drover_taskenv_t **self_p)
{
    assert (self_p);
    drover_taskenv_t *self = *self_p;
    if (!self)
        return;
    for (size_t index = 0; index < self->nbase; index++)
        zstr_free (&self->base [index]);
    for (size_t index = 0; index < self->npatterns; index++)
        free (self->patterns [index]);
    free (self->patterns);
    free (self->user);
    free (self->groups);
    free (self);
    *self_p = NULL;
}


//  Return true if name (size bytes, no '*') is a variable name:
//  [A-Za-z_][A-Za-z0-9_]*; size 0 only if prefix says it is a prefix
static bool
s_name_valid (const char *name, size_t size, bool prefix)
{
    if (size == 0)
        return prefix;
    if (isdigit ((unsigned char) name [0]))
        return false;
    for (size_t index = 0; index < size; index++)
        if (!isalnum ((unsigned char) name [index]) && name [index] != '_')
            return false;
    return true;
}


//  --------------------------------------------------------------------------
//  Allow the agent's variables named in list through to tasks. Returns 0,
//  or -1 with why in *error_p (nothing of list is then kept).

int
drover_taskenv_pass (drover_taskenv_t *self, const char *list, char **error_p)
{
    assert (self);
    assert (list);
    assert (error_p);
    //  Check every entry before keeping any
    for (int keep = 0; keep < 2; keep++) {
        const char *item = list;
        while (true) {
            const char *comma = strchr (item, ',');
            size_t size = comma? (size_t) (comma - item): strlen (item);
            bool prefix = size > 0 && item [size - 1] == '*';
            size_t name_size = prefix? size - 1: size;
            if (!keep) {
                if (!s_name_valid (item, name_size, prefix)) {
                    *error_p = zsys_sprintf ("'%.*s' is not a variable name (letters, digits "
                                             "and _, not first a digit; a trailing * for every "
                                             "name it starts)", (int) size, item);
                    return -1;
                }
                //  A prefix of DROVER_ (D*, *) would name those too
                size_t own = strlen (S_OWN_PREFIX);
                size_t compared = name_size < own? name_size: own;
                if (strncmp (item, S_OWN_PREFIX, compared) == 0
                && (prefix || name_size >= own)) {
                    *error_p = zsys_sprintf ("'%.*s' names the agent's own DROVER_* variables "
                                             "(its keys and settings), which are never passed "
                                             "to tasks", (int) size, item);
                    return -1;
                }
            }
            else {
                self->patterns = (char **) realloc (self->patterns,
                                                    (self->npatterns + 1) * sizeof (char *));
                assert (self->patterns);
                self->patterns [self->npatterns++] = zsys_sprintf ("%.*s", (int) size, item);
            }
            if (!comma)
                break;
            item = comma + 1;
        }
    }
    return 0;
}


//  --------------------------------------------------------------------------
//  Run tasks as the user called name. Returns 0, or -1 with why.

int
drover_taskenv_set_user (drover_taskenv_t *self, const char *name, char **error_p)
{
    assert (self);
    assert (name);
    assert (error_p);
    if (geteuid () != 0) {
        *error_p = zsys_sprintf ("the agent must run as root to run tasks as another user "
                                 "(it runs as uid %d)", (int) geteuid ());
        return -1;
    }
    errno = 0;
    struct passwd *pw = *name? getpwnam (name): NULL;
    if (!pw) {
        *error_p = errno? zsys_sprintf ("cannot look the user up: %s", strerror (errno))
                        : strdup ("no such user");
        return -1;
    }
    if (pw->pw_uid == 0 || pw->pw_gid == 0) {
        *error_p = zsys_sprintf ("%s: tasks would have the agent's privileges; name an "
                                 "unprivileged user", pw->pw_uid == 0? "is root"
                                                                     : "its group is root");
        return -1;
    }
    int ngroups = 32;
    gid_t *groups = NULL;
    while (true) {
        groups = (gid_t *) realloc (groups, (size_t) ngroups * sizeof (gid_t));
        assert (groups);
        int room = ngroups;
        if (getgrouplist (pw->pw_name, pw->pw_gid, groups, &ngroups) != -1)
            break;
        if (ngroups <= room)
            ngroups = room * 2;         //  older C libraries do not say how many
    }
    for (int index = 0; index < ngroups; index++)
        if (groups [index] == 0) {
            free (groups);
            *error_p = strdup ("is in group root: tasks would read the agent's group files; "
                               "name an unprivileged user");
            return -1;
        }
    free (self->user);
    free (self->groups);
    self->user = strdup (pw->pw_name);
    self->groups = groups;
    self->id.change = true;
    self->id.uid = pw->pw_uid;
    self->id.gid = pw->pw_gid;
    self->id.groups = groups;
    self->id.ngroups = (size_t) ngroups;
    s_base_make (self, pw);
    return 0;
}


//  --------------------------------------------------------------------------
//  Return the user's name tasks run as by set_user, or NULL

const char *
drover_taskenv_user (drover_taskenv_t *self)
{
    assert (self);
    return self->user;
}


//  --------------------------------------------------------------------------
//  Check that the tasks' user can enter dir. Returns 0, or -1 with why.

int
drover_taskenv_check_dir (drover_taskenv_t *self, const char *dir, char **error_p)
{
    assert (self);
    assert (dir);
    if (!self->id.change)
        return 0;
    //  The child makes system calls only: the agent may be multi-threaded
    pid_t pid = fork ();
    if (pid == 0) {
        int error = drover_taskenv_become (&self->id);
        if (error == 0 && chdir (dir) == -1)
            error = errno;
        _exit (error > 0 && error < 256? error: error? EPERM: 0);
    }
    int status = 0;
    if (pid == -1) {
        *error_p = zsys_sprintf ("cannot check the work directory: fork: %s", strerror (errno));
        return -1;
    }
    while (waitpid (pid, &status, 0) == -1 && errno == EINTR)
        ;
    if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
        return 0;
    *error_p = zsys_sprintf ("user %s cannot enter the work directory %s: %s", self->user, dir,
                             WIFEXITED (status)? strerror (WEXITSTATUS (status)): "killed");
    return -1;
}


//  Return true if a variable of the agent's, "NAME=value", is allowed through
static bool
s_allowed (drover_taskenv_t *self, const char *entry)
{
    if (strncmp (entry, S_OWN_PREFIX, strlen (S_OWN_PREFIX)) == 0)
        return false;           //  never, whatever the list says
    const char *equals = strchr (entry, '=');
    size_t name_size = equals? (size_t) (equals - entry): strlen (entry);
    for (size_t index = 0; index < self->npatterns; index++) {
        const char *pattern = self->patterns [index];
        size_t size = strlen (pattern);
        if (size && pattern [size - 1] == '*') {
            if (name_size >= size - 1 && memcmp (entry, pattern, size - 1) == 0)
                return true;
        }
        else
        if (name_size == size && memcmp (entry, pattern, size) == 0)
            return true;
    }
    return false;
}

//  Put entry into envp (size entries): it replaces the entry of the same
//  name, or is added
static void
s_put (char **envp, size_t *size_p, char *entry)
{
    const char *equals = strchr (entry, '=');
    size_t name_size = equals? (size_t) (equals - entry) + 1: strlen (entry);
    size_t index;
    for (index = 0; index < *size_p; index++)
        if (strncmp (envp [index], entry, name_size) == 0)
            break;
    envp [index] = entry;
    if (index == *size_p)
        (*size_p)++;
}


//  The room the entries of who take, NULs included
static size_t
s_who_size (const drover_taskenv_who_t *who)
{
    if (!who)
        return 0;
    return strlen (DROVER_TASKENV_TASK_ID "=") + 21
         + strlen (DROVER_TASKENV_ATTEMPT "=") + 11
         + (who->worker? strlen (DROVER_TASKENV_WORKER "=") + strlen (who->worker) + 1: 0);
}

//  Format who's entries into text (s_who_size bytes) and put them into envp
static void
s_who_put (char **envp, size_t *size_p, const drover_taskenv_who_t *who, char *text)
{
    int used = sprintf (text, DROVER_TASKENV_TASK_ID "=%" PRIu64, who->task);
    s_put (envp, size_p, text);
    text += used + 1;
    used = sprintf (text, DROVER_TASKENV_ATTEMPT "=%" PRIu32, who->attempt);
    s_put (envp, size_p, text);
    text += used + 1;
    if (who->worker) {
        sprintf (text, DROVER_TASKENV_WORKER "=%s", who->worker);
        s_put (envp, size_p, text);
    }
}


//  --------------------------------------------------------------------------
//  Build a task's environment: base, allowed variables of the agent's, the
//  task's own, its devices, who it is. Free only the array.

char **
drover_taskenv_build (drover_taskenv_t *self, char **agent_env, const drover_exec_t *exec,
                      const drover_taskenv_who_t *who)
{
    assert (self);
    assert (exec);
    size_t inherited = 0;
    if (self->npatterns)
        while (agent_env && agent_env [inherited])
            inherited++;
    size_t devices = 0;
    while (who && who->devices && who->devices [devices])
        devices++;
    size_t slots = self->nbase + inherited + exec->nenv + devices + (who? 3: 0) + 1;
    char **envp = (char **) zmalloc (slots * sizeof (char *) + s_who_size (who));
    size_t size = 0;
    for (size_t index = 0; index < self->nbase; index++)
        s_put (envp, &size, self->base [index]);
    for (size_t index = 0; index < inherited; index++)
        if (s_allowed (self, agent_env [index]))
            s_put (envp, &size, agent_env [index]);
    for (uint32_t index = 0; index < exec->nenv && exec->env [index]; index++)
        s_put (envp, &size, exec->env [index]);
    for (size_t index = 0; index < devices; index++)
        s_put (envp, &size, who->devices [index]);
    if (who)
        s_who_put (envp, &size, who, (char *) (envp + slots));
    envp [size] = NULL;
    return envp;
}


//  --------------------------------------------------------------------------
//  Fill id with the user tasks run as

void
drover_taskenv_identity (drover_taskenv_t *self, drover_taskenv_id_t *id)
{
    assert (self);
    assert (id);
    *id = self->id;
}


//  Runs in a child that shares the worker's memory, on a stack that never
//  returns: no sanitizer instrumentation (as drover_spawner's child code)
#if defined (__GNUC__) || defined (__clang__)
#   define S_CHILD_SIDE __attribute__ ((noinline, no_sanitize ("address", "undefined")))
#else
#   define S_CHILD_SIDE
#endif

//  --------------------------------------------------------------------------
//  Become the user id says, by this thread's own system calls, each
//  checked. Returns 0 or an errno.

S_CHILD_SIDE int
drover_taskenv_become (const drover_taskenv_id_t *id)
{
    if (!id->change)
        return 0;
    //  Groups first, while we may still set them; the user id last
    if (syscall (SYS_setgroups, (long) id->ngroups, id->groups) == -1
    ||  syscall (SYS_setresgid, (long) id->gid, (long) id->gid, (long) id->gid) == -1
    ||  syscall (SYS_setresuid, (long) id->uid, (long) id->uid, (long) id->uid) == -1)
        return errno;
    //  The ids took, and root cannot be had back
    if ((uid_t) syscall (SYS_getuid) != id->uid || (uid_t) syscall (SYS_geteuid) != id->uid
    ||  (gid_t) syscall (SYS_getgid) != id->gid || (gid_t) syscall (SYS_getegid) != id->gid
    ||  syscall (SYS_setresuid, 0L, 0L, 0L) != -1)
        return EPERM;
    return 0;
}
