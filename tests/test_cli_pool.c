/*  =========================================================================
    test_cli_pool - `drover pool` through the real CLI against a real
    broker: with the local driver and a minimum of one instance, the list
    and its JSON show the instance, hold, run, drain and destroy change
    what the list shows (a drained idle instance and a destroyed one go,
    and the minimum brings another), an unknown instance is a clear error
    and exit 1; without a pool it says "no pool configured" and exits 1
    (the list, --json and each action); flags and arguments it cannot use
    exit 2 with a message, before any request
    =========================================================================
*/

#include "testutil.h"
#include "drover_pool.h"
#include <sys/wait.h>
#include <dirent.h>

//  What one run of the CLI did
typedef struct {
    int status;                 //  exit status, 128 + signal, or -1 if it had to be stopped
    char out [65536];           //  its stdout
    char err [8192];            //  its stderr
} s_run_t;

//  Run `drover ARGS... --broker ENDPOINT --broker-timeout 10` into run
static void
s_cli (testutil_cluster_t *cluster, const char *const args [], s_run_t *run)
{
    const char *argv [24] = { DROVER_BIN };
    int argc = 1;
    for (int index = 0; args [index] && argc < 19; index++)
        argv [argc++] = args [index];
    argv [argc++] = "--broker";
    argv [argc++] = cluster->endpoint;
    argv [argc++] = "--broker-timeout";
    argv [argc++] = "10";
    argv [argc] = NULL;
    int status = testutil_run_cli (argv, run->out, sizeof run->out, run->err, sizeof run->err,
                                   20000);
    run->status = status == -1? -1: WIFEXITED (status)? WEXITSTATUS (status)
                                   : 128 + WTERMSIG (status);
}

//  Assert a run exited with status and its stream holds needle
static void
s_expect (const s_run_t *run, int status, const char *stream, const char *needle)
{
    if (run->status != status || !strstr (stream, needle))
        fail_msg ("expected status %d and '%s'; got status %d\nstdout:\n%s\nstderr:\n%s",
                  status, needle, run->status, run->out, run->err);
}

//  A tiny JSON checker: true if text is exactly one JSON value (RFC 8259,
//  what the CLI prints: objects, arrays, strings, numbers, true/false/null)
static const char *
s_json_value (const char *text, int depth)
{
    while (*text == ' ' || *text == '\n' || *text == '\t' || *text == '\r')
        text++;
    if (depth > 32)
        return NULL;
    if (*text == '{' || *text == '[') {
        char close = *text == '{'? '}': ']';
        bool object = *text == '{';
        text++;
        while (*text == ' ' || *text == '\n')
            text++;
        if (*text == close)
            return text + 1;
        while (true) {
            if (object) {
                while (*text == ' ' || *text == '\n')
                    text++;
                if (*text != '"' || !(text = s_json_value (text, depth + 1)))
                    return NULL;
                while (*text == ' ' || *text == '\n')
                    text++;
                if (*text++ != ':')
                    return NULL;
            }
            if (!(text = s_json_value (text, depth + 1)))
                return NULL;
            while (*text == ' ' || *text == '\n')
                text++;
            if (*text == close)
                return text + 1;
            if (*text++ != ',')
                return NULL;
        }
    }
    if (*text == '"') {
        for (text++; *text != '"'; text++) {
            if ((unsigned char) *text < 0x20)
                return NULL;
            if (*text == '\\') {
                text++;
                if (*text == 'u') {
                    for (int digit = 1; digit <= 4; digit++)
                        if (!isxdigit ((unsigned char) text [digit]))
                            return NULL;
                    text += 4;
                }
                else
                if (!strchr ("\"\\/bfnrt", *text) || !*text)
                    return NULL;
            }
        }
        return text + 1;
    }
    if (strncmp (text, "true", 4) == 0 || strncmp (text, "null", 4) == 0)
        return text + 4;
    if (strncmp (text, "false", 5) == 0)
        return text + 5;
    const char *start = text;
    if (*text == '-')
        text++;
    if (!isdigit ((unsigned char) *text))
        return NULL;
    while (isdigit ((unsigned char) *text) || *text == '.' || *text == 'e' || *text == 'E'
       ||  ((*text == '+' || *text == '-') && (text [-1] == 'e' || text [-1] == 'E')))
        text++;
    return text > start? text: NULL;
}

//  Assert text is one JSON document (and a newline)
static void
s_assert_json (const char *text)
{
    const char *end = s_json_value (text, 0);
    if (!end || strspn (end, "\n") != strlen (end))
        fail_msg ("not one JSON document:\n%s", text);
}

//  A pool of one type of 1 proc, at most 2 instances, at least 1, never
//  idle long enough to be retired during the test
static const char *s_pool_flags [] = {
    "--set", "pool/max-instances=2",
    "--set", "pool/min-instances=1",
    "--set", "pool/idle-timeout=600000",
    "--set", "pool/type/small/procs=1",
    "--set", "pool/type/small/memory=256M",
    "--set", "pool/type/small/price=0.10",
    NULL
};

//  What to look for in the pool: a row in a state, or a row's absence
typedef struct {
    const char *id;             //  this instance, or NULL for any
    const char *other_than;     //  any instance but this one, or NULL
    int state;                  //  the state wanted, or -1: id is gone or shutting down
    char found [DROVER_ID_MAX + 1];     //  the instance found
} s_want_t;

//  True once the pool shows what want asks (POOL LIST, as the CLI asks)
static bool
s_pool_shows (zsock_t *dealer, s_want_t *want)
{
    drover_msg_t *list = drover_msg_new (DROVER_MSG_POOL_LIST);
    drover_msg_t *table = testutil_request (dealer, &list, 2000);
    bool shown = false, listed = false;
    for (uint32_t index = 0; table && table->id == DROVER_MSG_POOL_TABLE
                             && index < table->nrows; index++) {
        const drover_pool_row_t *row = &table->pool_rows [index];
        if (want->id && !streq (row->id, want->id))
            continue;
        if (want->other_than && streq (row->id, want->other_than))
            continue;
        listed = true;
        if (row->state == want->state && !shown) {
            shown = true;
            strcpy (want->found, row->id);
        }
        if (want->state == -1 && row->state == DROVER_POOL_STATE_MAX)
            shown = true;       //  shutting down: going
    }
    if (want->state == -1 && table && !listed)
        shown = true;           //  gone
    drover_msg_destroy (&table);
    return shown;
}

//  Wait until the pool shows what want asks; fail after timeout msec
static void
s_await_pool (zsock_t *dealer, s_want_t *want, int timeout)
{
    int64_t deadline = zclock_mono () + timeout;
    while (!s_pool_shows (dealer, want)) {
        if (zclock_mono () > deadline)
            fail_msg ("the pool never showed %s %s", want->id? want->id: "an instance",
                      want->state >= 0? drover_pool_state_name (want->state): "gone");
        zclock_sleep (50);      //  paces the questions; the deadline bounds the wait
    }
}

//  Stop the `drover worker` processes still connected to endpoint (the
//  pool's, which a broker stopped does not take down)
static void
s_stop_pool_workers (const char *endpoint)
{
    DIR *proc = opendir ("/proc");
    assert_non_null (proc);
    struct dirent *entry;
    while ((entry = readdir (proc))) {
        pid_t pid = (pid_t) atoi (entry->d_name);
        if (pid <= 0)
            continue;
        char path [64], cmdline [2048];
        snprintf (path, sizeof path, "/proc/%d/cmdline", (int) pid);
        FILE *file = fopen (path, "r");
        if (!file)
            continue;
        size_t size = fread (cmdline, 1, sizeof cmdline - 1, file);
        fclose (file);
        cmdline [size] = 0;
        bool worker = false, ours = false;
        for (size_t at = 0; at < size; at += strlen (cmdline + at) + 1) {
            worker |= streq (cmdline + at, "worker");
            ours |= strstr (cmdline + at, endpoint) != NULL;
        }
        if (worker && ours)
            testutil_stop (pid, 5000);
    }
    closedir (proc);
}

//  The pool through the CLI: an instance listed (text and JSON); hold and
//  run show in the list; an unknown id is 404 and exit 1; drain takes the
//  idle instance away, the minimum brings another, destroy takes that one
//  away and nothing more can be asked of it
static void
test_pool_listed_and_steered (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (s_pool_flags);
    zsock_t *dealer = testutil_dealer (cluster);
    s_run_t *run = (s_run_t *) zmalloc (sizeof (s_run_t));
    s_want_t want = { NULL, NULL, DROVER_INSTANCE_IDLE, "" };
    s_await_pool (dealer, &want, 30000);
    char first [DROVER_ID_MAX + 1];
    strcpy (first, want.found);
    assert_non_null (strstr (first, "POOL-"));

    const char *list [] = { "pool", NULL };
    s_cli (cluster, list, run);
    s_expect (run, 0, run->out, "ID ");
    s_expect (run, 0, run->out, "LAST-BUSY");
    s_expect (run, 0, run->out, first);
    s_expect (run, 0, run->out, "small");
    s_expect (run, 0, run->out, "idle");
    s_expect (run, 0, run->out, "instances 1/2, price per hour 0.10/no limit");
    const char *json [] = { "pool", "--json", NULL };
    s_cli (cluster, json, run);
    s_expect (run, 0, run->out, "\"enabled\":true,\"driver\":\"local\",\"live\":1");
    s_expect (run, 0, run->out, "\"state\":\"idle\",\"behaviour\":\"run\"");
    s_assert_json (run->out);

    //  Hold, then run: the list shows each
    const char *hold [] = { "pool", "hold", first, NULL };
    s_cli (cluster, hold, run);
    s_expect (run, 0, run->out, "held");
    s_cli (cluster, json, run);
    s_expect (run, 0, run->out, "\"behaviour\":\"hold\"");
    const char *resume [] = { "pool", "run", first, "--json", NULL };
    s_cli (cluster, resume, run);
    s_expect (run, 0, run->out, "\"ok\":true,\"code\":200");
    s_assert_json (run->out);
    s_cli (cluster, json, run);
    s_expect (run, 0, run->out, "\"behaviour\":\"run\"");

    //  An instance the pool does not have
    const char *unknown [] = { "pool", "hold", "POOL-nope-1", NULL };
    s_cli (cluster, unknown, run);
    s_expect (run, 1, run->err, "not found (404)");
    s_expect (run, 1, run->err, "POOL-nope-1");

    //  Drain: idle, so it goes; the minimum brings another
    const char *drain [] = { "pool", "drain", first, NULL };
    s_cli (cluster, drain, run);
    s_expect (run, 0, run->out, "draining");
    want = (s_want_t) { first, NULL, -1, "" };
    s_await_pool (dealer, &want, 30000);
    want = (s_want_t) { NULL, first, DROVER_INSTANCE_IDLE, "" };
    s_await_pool (dealer, &want, 30000);
    char second [DROVER_ID_MAX + 1];
    strcpy (second, want.found);

    //  Destroy it: it goes, and nothing more can be asked of it
    const char *destroy [] = { "pool", "destroy", second, NULL };
    s_cli (cluster, destroy, run);
    s_expect (run, 0, run->out, "destroying");
    want = (s_want_t) { second, NULL, -1, "" };
    s_await_pool (dealer, &want, 30000);
    const char *again [] = { "pool", "hold", second, NULL };
    s_cli (cluster, again, run);
    if (run->status != 1 || !(strstr (run->err, "(404)") || strstr (run->err, "(410)")))
        fail_msg ("hold of a destroyed instance: status %d, %s", run->status, run->err);

    free (run);
    zsock_destroy (&dealer);
    char endpoint [64];
    strcpy (endpoint, cluster->endpoint);
    testutil_cluster_destroy (&cluster);
    s_stop_pool_workers (endpoint);
}

//  Without a pool, every pool command says so and exits 1; the list's
//  --json is still a document (enabled false)
static void
test_no_pool_configured (void **state)
{
    testutil_cluster_t *cluster = testutil_cluster_new (NULL);
    s_run_t *run = (s_run_t *) zmalloc (sizeof (s_run_t));

    const char *list [] = { "pool", NULL };
    s_cli (cluster, list, run);
    s_expect (run, 1, run->err, "no pool configured");
    assert_string_equal (run->out, "");

    const char *json [] = { "pool", "--json", NULL };
    s_cli (cluster, json, run);
    s_expect (run, 1, run->out, "\"enabled\":false");
    s_assert_json (run->out);
    s_expect (run, 1, run->err, "no pool configured");

    const char *actions [] = { "hold", "drain", "run", "destroy" };
    for (int index = 0; index < 4; index++) {
        const char *admin [] = { "pool", actions [index], "POOL-x-1", NULL };
        s_cli (cluster, admin, run);
        s_expect (run, 1, run->err, "no pool configured");
        s_expect (run, 1, run->err, "503");
    }
    const char *admin_json [] = { "pool", "hold", "POOL-x-1", "POOL-x-2", "--json", NULL };
    s_cli (cluster, admin_json, run);
    s_expect (run, 1, run->out, "\"ok\":false,\"code\":503");
    s_assert_json (run->out);
    assert_non_null (strstr (run->out, "\"id\":\"POOL-x-2\""));    //  each id is asked

    free (run);
    testutil_cluster_destroy (&cluster);
}

//  What the CLI cannot use exits 2 with a message and asks nothing: an
//  unknown action (with the nearest one), no instance, a bad id, an extra
//  argument, an unknown flag
static void
test_bad_arguments (void **state)
{
    //  No broker at this endpoint: a request would fail with 1, not 2
    testutil_cluster_t nobody = { 0 };
    snprintf (nobody.endpoint, sizeof nobody.endpoint, "tcp://127.0.0.1:%d",
              testutil_free_port ());
    s_run_t *run = (s_run_t *) zmalloc (sizeof (s_run_t));
    const char *typo [] = { "pool", "hodl", "POOL-1", NULL };
    s_cli (&nobody, typo, run);
    s_expect (run, 2, run->err, "did you mean 'hold'?");
    const char *unknown [] = { "pool", "explode", "POOL-1", NULL };
    s_cli (&nobody, unknown, run);
    s_expect (run, 2, run->err, "unknown action 'explode'");
    const char *none [] = { "pool", "destroy", NULL };
    s_cli (&nobody, none, run);
    s_expect (run, 2, run->err, "which instance?");
    const char *bad_id [] = { "pool", "drain", "POOL 1", NULL };
    s_cli (&nobody, bad_id, run);
    s_expect (run, 2, run->err, "is not an instance id");
    const char *extra [] = { "pool", "list", "more", NULL };
    s_cli (&nobody, extra, run);
    s_expect (run, 2, run->err, "unexpected argument 'more'");
    const char *flag [] = { "pool", "--all", NULL };
    s_cli (&nobody, flag, run);
    s_expect (run, 2, run->err, "unknown option '--all'");
    const char *help [] = { "pool", "--help", NULL };
    s_cli (&nobody, help, run);
    s_expect (run, 0, run->out, "drover pool destroy ID...");
    free (run);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_pool_listed_and_steered),
        cmocka_unit_test (test_no_pool_configured),
        cmocka_unit_test (test_bad_arguments),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
