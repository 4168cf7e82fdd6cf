/*  =========================================================================
    drover_cli_json - what `--json` prints that more than one subcommand
    shares: a list of task ids, and a task's outcome (TASK DONE) as one
    JSON object
    =========================================================================
*/

#include "drover_cli.h"
#include <ctype.h>

//  Write bytes as a JSON string: printable ASCII as is, other bytes escaped
static void
s_json_bytes (FILE *stream, const byte *data, size_t size)
{
    fputc ('"', stream);
    for (size_t index = 0; index < size; index++) {
        byte ch = data [index];
        if (ch == '"' || ch == '\\')
            fprintf (stream, "\\%c", ch);
        else
        if (ch == '\n')
            fputs ("\\n", stream);
        else
        if (ch == '\t')
            fputs ("\\t", stream);
        else
        if (ch < 0x20 || ch >= 0x7f)
            fprintf (stream, "\\u%04x", ch);
        else
            fputc (ch, stream);
    }
    fputc ('"', stream);
}

//  Print {"ids":[...]} and a newline
void
drover_cli_json_ids (const uint64_t *tasks, size_t count)
{
    printf ("{\"ids\":[");
    for (size_t index = 0; index < count; index++)
        printf ("%s%llu", index? ",": "", (unsigned long long) tasks [index]);
    printf ("]}\n");
}

//  Print a task's outcome as one JSON object (no newline): id, state,
//  outcome, exit_code, signal, worker, reason, and with output its stdout
//  and stderr
void
drover_cli_json_done (const drover_msg_t *done, bool output)
{
    char state [16], outcome [32];
    size_t length = 0;
    for (const char *name = drover_task_state_name (done->state); *name && length + 1 < sizeof state; name++)
        state [length++] = (char) tolower ((unsigned char) *name);
    state [length] = 0;
    drover_cli_end_name (done->end, outcome, sizeof outcome);
    printf ("{\"id\":%llu,\"state\":\"%s\",\"outcome\":\"%s\",\"exit_code\":%d,\"signal\":%d,"
            "\"status\":%d,\"worker\":", (unsigned long long) done->task, state, outcome,
            done->exit_code, done->signal, drover_cli_exit_status (done));
    drover_cli_json_string (stdout, done->worker);
    printf (",\"reason\":");
    drover_cli_json_string (stdout, done->reason? done->reason: "");
    if (output) {
        printf (",\"stdout\":");
        s_json_bytes (stdout, done->out, done->out_size);
        printf (",\"stderr\":");
        s_json_bytes (stdout, done->err, done->err_size);
        printf (",\"truncated\":%s", done->truncated? "true": "false");
    }
    printf ("}");
}
