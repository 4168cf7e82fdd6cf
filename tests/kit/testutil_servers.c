/*  =========================================================================
    testutil_servers - real servers a test starts (see the header)
    =========================================================================
*/

#include "testutil_servers.h"
#include "testutil_proc.h"
#include <sys/wait.h>

//  Servers started and not yet stopped, by script and directory: a test
//  that fails leaves its body at the failed assertion, before it stops
//  them, and they must not outlive the test process
#define S_STARTED_MAX   32
typedef struct {
    char script [32];           //  "etcd_server.sh", "pg_server.sh"
    char dir [256];             //  the directory its start named
} s_started_t;
static s_started_t s_started [S_STARTED_MAX];
static size_t s_nstarted;
static pid_t s_owner;           //  the process that started them (not a forked child)

//  At exit: stop every server a test left running (no assertions here:
//  cmocka is done)
static void
s_stop_left (void)
{
    if (getpid () != s_owner)
        return;                 //  a child of the test that exits: not its servers
    for (size_t index = 0; index < s_nstarted; index++) {
        char command [10240];
        snprintf (command, sizeof command, "/bin/sh '%s/tests/%s' stop '%s' >/dev/null 2>&1",
                  DROVER_SOURCE_DIR, s_started [index].script, s_started [index].dir);
        fprintf (stderr, "testutil: stopping %s %s, left running by a test\n",
                 s_started [index].script, s_started [index].dir);
        if (system (command) != 0)
            fprintf (stderr, "testutil: could not stop %s\n", s_started [index].dir);
    }
    s_nstarted = 0;
}

//  Note a start (remember) or a stop (forget) of script's server in dir
static void
s_note (const char *script, const char *command, const char *dir)
{
    if (streq (command, "start") && s_nstarted < S_STARTED_MAX) {
        if (s_owner == 0)
            atexit (s_stop_left);
        if (s_owner != getpid ())
            s_nstarted = 0;     //  a forked child's own servers, not its parent's
        s_owner = getpid ();
        snprintf (s_started [s_nstarted].script, sizeof s_started [0].script, "%s", script);
        snprintf (s_started [s_nstarted].dir, sizeof s_started [0].dir, "%s", dir);
        s_nstarted++;
    }
    else
    if (streq (command, "stop"))
        for (size_t index = 0; index < s_nstarted; index++)
            if (streq (s_started [index].script, script) && streq (s_started [index].dir, dir)) {
                s_started [index] = s_started [--s_nstarted];
                break;
            }
}

//  Run one of the server scripts (tests/NAME.sh) with its arguments; its
//  first stdout line (a URL) goes to url. Asserts it succeeds.
void
testutil_server_script (const char *script, const char *const args [], char *url, size_t size)
{
    char path [256];
    snprintf (path, sizeof path, "%s/tests/%s", DROVER_SOURCE_DIR, script);
    const char *argv [12] = { "/bin/sh", path };
    int argc = 2;
    for (int index = 0; args [index] && argc < 11; index++)
        argv [argc++] = args [index];
    argv [argc] = NULL;
    char output [512] = "";
    int status = testutil_run_output (argv, output, sizeof output, 60000);
    if (args [0] && args [1])
        s_note (script, args [0], args [1]);
    if (status == -1 || !WIFEXITED (status) || WEXITSTATUS (status))
        fail_msg ("%s %s failed (status 0x%x): is it installed? output: %s", script, args [0],
                  status, output);
    if (url) {
        output [strcspn (output, "\r\n")] = 0;
        snprintf (url, size, "%s", output);
    }
}

#define TESTUTIL_ETCD_SCRIPT    DROVER_SOURCE_DIR "/tests/etcd_server.sh"

//  Start a server script on fresh ports, three tries at most
void
testutil_server_start (const char *script, const char *dir, int *ports, int nports,
                       char *url, size_t size)
{
    assert_true (nports >= 1 && nports <= 2);
    char path [256];
    snprintf (path, sizeof path, "%s/tests/%s", DROVER_SOURCE_DIR, script);
    char output [512] = "";
    int status = -1;
    for (int attempt = 0; attempt < 3 && status != 0; attempt++) {
        char texts [2][16];
        const char *argv [8] = { "/bin/sh", path, "start", dir };
        for (int index = 0; index < nports; index++) {
            do
                ports [index] = testutil_free_port ();
            while (index > 0 && ports [index] == ports [0]);
            snprintf (texts [index], sizeof texts [index], "%d", ports [index]);
            argv [4 + index] = texts [index];
        }
        argv [4 + nports] = NULL;
        if (attempt)
            fprintf (stderr, "testutil: %s did not start (a port taken beside us?): "
                     "again on fresh ports\n", script);
        status = testutil_run_output (argv, output, sizeof output, 60000);
        if (status == -1 || !WIFEXITED (status))
            break;              //  hung or killed: not a port taken
    }
    s_note (script, "start", dir);
    if (status == -1 || !WIFEXITED (status) || WEXITSTATUS (status))
        fail_msg ("%s start failed (status 0x%x): is it installed? output: %s", script, status,
                  output);
    output [strcspn (output, "\r\n")] = 0;
    snprintf (url, size, "%s", output);
}

//  Start etcd through the script
testutil_etcd_t *
testutil_etcd_start (void)
{
    testutil_etcd_t *self = (testutil_etcd_t *) zmalloc (sizeof (testutil_etcd_t));
    char template [] = "/tmp/drover-etcd-XXXXXX";
    assert_non_null (mkdtemp (template));
    snprintf (self->dir, sizeof self->dir, "%s", template);
    int ports [2];
    testutil_server_start ("etcd_server.sh", self->dir, ports, 2, self->url, sizeof self->url);
    self->client_port = ports [0];
    self->peer_port = ports [1];
    assert_true (strncmp (self->url, "http://127.0.0.1:", 17) == 0);
    return self;
}

//  Pause or resume etcd
void
testutil_etcd_signal (testutil_etcd_t *self, const char *command)
{
    assert_non_null (self);
    const char *args [] = { command, self->dir, NULL };
    testutil_server_script ("etcd_server.sh", args, NULL, 0);
}

//  Stop etcd
void
testutil_etcd_stop (testutil_etcd_t **self_p, bool keep)
{
    testutil_etcd_t *self = *self_p;
    if (!self)
        return;
    const char *argv [] = { "/bin/sh", TESTUTIL_ETCD_SCRIPT, "stop", self->dir, keep? "keep": "",
                            NULL };
    char output [256];
    testutil_run_output (argv, output, sizeof output, 20000);
    s_note ("etcd_server.sh", "stop", self->dir);
    if (keep)
        fprintf (stderr, "testutil: etcd's data and log kept in %s\n", self->dir);
    free (self);
    *self_p = NULL;
}
