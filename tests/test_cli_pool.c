/*  =========================================================================
    test_cli_pool - `drover pool` through the real CLI against a real
    broker: without a pool it says "no pool configured" and exits 1 (the
    list, --json and each action); flags and arguments it cannot use exit
    2 with a message, before any request
    =========================================================================
*/

#include "testutil.h"
#include <sys/wait.h>

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
        cmocka_unit_test (test_no_pool_configured),
        cmocka_unit_test (test_bad_arguments),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
