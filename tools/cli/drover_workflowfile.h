/*  =========================================================================
    drover_workflowfile - a workflow file, read into a drover_workflow_t

    One step per line: `NAME: [options] [--] COMMAND ARGS...`, where the
    options are `drover submit`'s for one task (drover_taskopts), and
    --after, --after-any and --after-fail take step names of the same file
    as well as ids of tasks already submitted. '#' starts a comment (at a
    word's start), blank lines are skipped, a line ending with a backslash
    goes on on the next. Words are split as a shell splits them, without
    expanding anything: 'single quotes' keep everything, "double quotes"
    keep all but \", \\, \$ and \`, and a backslash outside quotes keeps
    the next character. Steps may come in any order.

    Whatever is wrong is told as FILE:LINE: why, and nothing is made: a
    bad option or quoting, a duplicate name, an --after naming no step, a
    cycle (naming its steps, at the line of its first one).
    =========================================================================
*/

#ifndef DROVER_WORKFLOWFILE_H_INCLUDED
#define DROVER_WORKFLOWFILE_H_INCLUDED

#include "drover_client.h"

#ifdef __cplusplus
extern "C" {
#endif

//  Read a workflow from text (size bytes; path names it in errors) into
//  a workflow called title (NULL: "workflow"). NULL with "PATH:LINE: why"
//  (or "PATH: why") in error (size bytes).
drover_workflow_t *
    drover_workflowfile_parse (const char *path, const char *text, size_t length,
                               const char *title, char *error, size_t size);

//  Read the workflow file at path ("-": stdin), as drover_workflowfile_parse
drover_workflow_t *
    drover_workflowfile_load (const char *path, const char *title, char *error, size_t size);

//  Split one line into words, as a shell would without expanding anything
//  (quotes, backslashes; '#' at a word's start ends the line). Returns the
//  words (a NULL-terminated array, each and it ours: drover_workflowfile_free),
//  with their count in *count_p, or NULL with why in error.
char **
    drover_workflowfile_split (const char *line, int *count_p, char *error, size_t size);

//  Free words from drover_workflowfile_split; harmless on NULL
void
    drover_workflowfile_free (char **words);

#ifdef __cplusplus
}
#endif

#endif
