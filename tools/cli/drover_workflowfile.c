/*  =========================================================================
    drover_workflowfile - a workflow file, read into a drover_workflow_t
    (see drover_workflowfile.h)

    Two passes: the first splits each logical line into words, takes its
    step's name, options (getopt_long over drover_taskopts' table, as
    `drover submit` does) and command, and adds the step; the second
    reads each step's --after words as steps of the file or task ids,
    once every name is known, then checks the graph for a cycle.
    =========================================================================
*/

#include "drover_workflowfile.h"
#include "drover_taskopts.h"
#include "drover_client_wire.h"

//  Longest logical line, bytes
#define S_LINE_MAX      (64 * 1024)
//  Largest workflow file, bytes
#define S_FILE_MAX      (4 << 20)

//  What the first pass keeps of a step, for the second
typedef struct {
    size_t line;                //  where it is in the file
    drover_taskopts_t *options; //  its options, with its --after words, owned
} s_step_t;

//  Say why in error; returns NULL
static void *
s_fail (char *error, size_t size, const char *format, ...)
{
    va_list args;
    va_start (args, format);
    if (error && size)
        vsnprintf (error, size, format, args);
    va_end (args);
    return NULL;
}

//  A growing word
typedef struct {
    char *data;                 //  owned
    size_t length;
    size_t capacity;
} s_word_t;

//  Append a character to a word
static void
s_put (s_word_t *word, char c)
{
    if (word->length + 1 >= word->capacity) {
        word->capacity = word->capacity? word->capacity * 2: 32;
        word->data = (char *) realloc (word->data, word->capacity);
        assert (word->data);
    }
    word->data [word->length++] = c;
    word->data [word->length] = 0;
}

//  Free words from drover_workflowfile_split
void
drover_workflowfile_free (char **words)
{
    if (!words)
        return;
    for (char **cursor = words; *cursor; cursor++)
        free (*cursor);
    free (words);
}

//  Split one line into words, as a shell would without expanding anything
char **
drover_workflowfile_split (const char *line, int *count_p, char *error, size_t size)
{
    assert (line && count_p);
    char **words = (char **) zmalloc (sizeof (char *));
    int count = 0;
    const char *cursor = line;
    while (true) {
        while (*cursor == ' ' || *cursor == '\t' || *cursor == '\r' || *cursor == '\n')
            cursor++;
        if (!*cursor || *cursor == '#')
            break;                      //  the line's end, or a comment
        s_word_t word = { NULL, 0, 0 };
        s_put (&word, 0);               //  "" is a word too
        word.length = 0;
        const char *problem = NULL;
        while (*cursor && !strchr (" \t\r\n", *cursor) && !problem) {
            char c = *cursor++;
            if (c == '\'') {
                const char *close = strchr (cursor, '\'');
                if (!close)
                    problem = "a ' quote is not closed";
                else
                    for (; cursor < close; cursor++)
                        s_put (&word, *cursor);
                if (close)
                    cursor = close + 1;
            }
            else
            if (c == '"') {
                while (*cursor && *cursor != '"') {
                    if (*cursor == '\\' && cursor [1] && strchr ("\"\\$`", cursor [1]))
                        cursor++;
                    s_put (&word, *cursor++);
                }
                if (*cursor == '"')
                    cursor++;
                else
                    problem = "a \" quote is not closed";
            }
            else
            if (c == '\\') {
                if (*cursor)
                    s_put (&word, *cursor++);
                else
                    problem = "a backslash ends the line (nothing to escape)";
            }
            else
                s_put (&word, c);
        }
        if (problem) {
            free (word.data);
            drover_workflowfile_free (words);
            return s_fail (error, size, "%s", problem);
        }
        words = (char **) realloc (words, (count + 2) * sizeof (char *));
        assert (words);
        words [count++] = word.data;
        words [count] = NULL;
    }
    *count_p = count;
    return words;
}

//  Read one step's line (words, count > 0) into the workflow. Returns 0,
//  or -1 with why (no FILE:LINE yet) in error.
static int
s_read_step (drover_workflow_t *workflow, s_step_t *step, char **words, int count,
             char *error, size_t size)
{
    static struct option long_options [] = {
        DROVER_TASKOPTS_LONG,
        { NULL, 0, NULL, 0 }
    };
    size_t length = strlen (words [0]);
    if (length < 2 || words [0][length - 1] != ':') {
        s_fail (error, size, "a step starts with its name and a colon (NAME: [options] "
                "COMMAND...), not '%.64s'", words [0]);
        return -1;
    }
    words [0][length - 1] = 0;
    const char *name = words [0];
    //  getopt_long reads argv from 1: the name's place is argv [0]
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (count, words, "+:" DROVER_TASKOPTS_SHORT, long_options,
                                  NULL)) != -1) {
        char why [256];
        if (option == '?' || option == ':') {
            const char *word = words [optind - 1];
            if (option == ':')
                s_fail (error, size, "step '%s': %s needs a value", name, word);
            else
                s_fail (error, size, "step '%s': unknown option %s", name, word);
            return -1;
        }
        int rc = drover_taskopts_apply (step->options, option, optarg, why, sizeof why);
        if (rc) {
            s_fail (error, size, "step '%s': %s", name, rc < 0? why: "not a step's option");
            return -1;
        }
    }
    char why [256];
    if (drover_taskopts_check (step->options, why, sizeof why)) {
        s_fail (error, size, "step '%s': %s", name, why);
        return -1;
    }
    if (optind >= count) {
        s_fail (error, size, "step '%s' has no command", name);
        return -1;
    }
    drover_msg_t *submit = drover_taskopts_submit (step->options, count - optind,
                                                   (const char **) words + optind, why,
                                                   sizeof why);
    if (!submit) {
        s_fail (error, size, "step '%s': %s", name, why);
        return -1;
    }
    drover_submit_t *made = drover_submit_of (submit);
    if (drover_workflow_add (workflow, name, &made) == -1) {
        drover_submit_destroy (&made);
        s_fail (error, size, "'%.64s' is not a step name (1..%d printable bytes, no space), "
                "or past %d steps", name, DROVER_ID_MAX, DROVER_STEPS_MAX);
        return -1;
    }
    return 0;
}

//  Name an after kind as its option does
static const char *
s_kind_option (int kind)
{
    return kind == DROVER_AFTER_ANY? "after-any": kind == DROVER_AFTER_FAIL? "after-fail": "after";
}

//  Read a task id (a whole number above 0); 0 if it is not one
static uint64_t
s_task_id (const char *text)
{
    if (!isdigit ((unsigned char) *text))
        return 0;
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull (text, &end, 10);
    return errno || *end? 0: (uint64_t) value;
}

//  The second pass: each step's --after words, steps or task ids.
//  Returns 0, or -1 with "PATH:LINE: why" in error.
static int
s_link_steps (drover_workflow_t *workflow, s_step_t *steps, const char *path,
              char *error, size_t size)
{
    for (size_t index = 0; index < drover_workflow_size (workflow); index++) {
        s_step_t *step = &steps [index];
        int number = (int) index + 1;
        const char *name = drover_workflow_name (workflow, number);
        drover_submit_t *submit = drover_workflow_submit (workflow, number);
        for (size_t at = 0; at < drover_taskopts_afters (step->options); at++) {
            const char *word = drover_taskopts_after_name (step->options, at);
            int kind = drover_taskopts_after_kind (step->options, at);
            int parent = drover_workflow_find (workflow, word);
            uint64_t task = parent? 0: s_task_id (word);
            int rc = 0;
            if (parent == number) {
                s_fail (error, size, "%s:%zu: step '%s' waits for itself", path, step->line,
                        name);
                return -1;
            }
            if (parent)
                rc = drover_workflow_after (workflow, number, kind, parent);
            else
            if (task)
                rc = drover_submit_add_after (submit, kind, task);
            else {
                s_fail (error, size, "%s:%zu: step '%s': --%s names '%.64s', which is no step "
                        "of the file (nor a task id)", path, step->line, name,
                        s_kind_option (kind), word);
                return -1;
            }
            if (rc) {
                s_fail (error, size, "%s:%zu: step '%s' waits for more than %d", path,
                        step->line, name, DROVER_AFTER_MAX);
                return -1;
            }
        }
    }
    char why [DROVER_REASON_MAX + 1];
    if (drover_workflow_check (workflow, why, sizeof why)) {
        int first = drover_workflow_cycle_step (workflow);
        s_fail (error, size, "%s:%zu: %s", path, first? steps [first - 1].line: 0, why);
        return -1;
    }
    return 0;
}

//  Read a workflow from text
drover_workflow_t *
drover_workflowfile_parse (const char *path, const char *text, size_t length,
                           const char *title, char *error, size_t size)
{
    assert (path && text);
    drover_workflow_t *workflow = drover_workflow_new (title);
    if (!workflow)
        return s_fail (error, size, "--name: '%.64s' is not a name (1..%d printable bytes, "
                       "no space)", title, DROVER_ID_MAX);
    s_step_t *steps = (s_step_t *) zmalloc ((DROVER_STEPS_MAX + 1) * sizeof (s_step_t));
    size_t nsteps = 0;
    s_word_t line = { NULL, 0, 0 };
    size_t number = 0;              //  the physical line read last
    size_t first = 0;               //  the logical line's first
    const char *cursor = text, *end = text + length;
    bool failed = false;
    while (cursor < end && !failed) {
        //  One logical line: physical ones joined while they end with
        //  an odd number of backslashes
        line.length = 0;
        s_put (&line, 0);
        line.length = 0;
        first = number + 1;
        while (cursor < end) {
            const char *stop = memchr (cursor, '\n', (size_t) (end - cursor));
            size_t bytes = stop? (size_t) (stop - cursor): (size_t) (end - cursor);
            number++;
            size_t backslashes = 0;
            while (backslashes < bytes && cursor [bytes - 1 - backslashes] == '\\')
                backslashes++;
            bool more = backslashes % 2 == 1;
            for (size_t at = 0; at < bytes - (more? 1: 0); at++)
                s_put (&line, cursor [at]);
            cursor += bytes + (stop? 1: 0);
            if (memchr (line.data, 0, line.length)) {
                s_fail (error, size, "%s:%zu: a NUL byte in the line", path, number);
                failed = true;
                break;
            }
            if (line.length > S_LINE_MAX) {
                s_fail (error, size, "%s:%zu: a line longer than %d bytes", path, first,
                        S_LINE_MAX);
                failed = true;
                break;
            }
            if (!more)
                break;
            s_put (&line, ' ');
        }
        if (failed)
            break;
        int count = 0;
        char why [256];
        char **words = drover_workflowfile_split (line.data, &count, why, sizeof why);
        if (!words) {
            s_fail (error, size, "%s:%zu: %s", path, first, why);
            failed = true;
            break;
        }
        if (count > 0) {
            size_t colon = strlen (words [0]);
            if (colon > 1 && words [0][colon - 1] == ':') {
                words [0][colon - 1] = 0;
                int taken = drover_workflow_find (workflow, words [0]);
                words [0][colon - 1] = ':';
                if (taken) {
                    s_fail (error, size, "%s:%zu: a step named '%.64s' is on line %zu already",
                            path, first, drover_workflow_name (workflow, taken),
                            steps [taken - 1].line);
                    failed = true;
                }
            }
            if (!failed && nsteps == DROVER_STEPS_MAX) {
                s_fail (error, size, "%s:%zu: more than %d steps", path, first,
                        DROVER_STEPS_MAX);
                failed = true;
            }
            if (!failed) {
                steps [nsteps].line = first;
                steps [nsteps].options = drover_taskopts_new ();
                nsteps++;
                if (s_read_step (workflow, &steps [nsteps - 1], words, count, why, sizeof why)) {
                    s_fail (error, size, "%s:%zu: %s", path, first, why);
                    failed = true;
                }
            }
        }
        drover_workflowfile_free (words);
    }
    if (!failed && drover_workflow_size (workflow) == 0) {
        s_fail (error, size, "%s: no steps (one per line: NAME: [options] COMMAND...)", path);
        failed = true;
    }
    if (!failed && s_link_steps (workflow, steps, path, error, size))
        failed = true;
    for (size_t index = 0; index < nsteps; index++)
        drover_taskopts_destroy (&steps [index].options);
    free (steps);
    free (line.data);
    if (failed)
        drover_workflow_destroy (&workflow);
    return workflow;
}

//  Read the workflow file at path
drover_workflow_t *
drover_workflowfile_load (const char *path, const char *title, char *error, size_t size)
{
    assert (path);
    FILE *file = streq (path, "-")? stdin: fopen (path, "rb");
    if (!file)
        return s_fail (error, size, "%s: cannot read: %s", path, strerror (errno));
    char *data = (char *) malloc (S_FILE_MAX + 1);
    assert (data);
    size_t got = fread (data, 1, S_FILE_MAX + 1, file);
    bool failed = ferror (file);
    if (file != stdin)
        fclose (file);
    drover_workflow_t *workflow = NULL;
    if (failed)
        s_fail (error, size, "%s: cannot read", path);
    else
    if (got > S_FILE_MAX)
        s_fail (error, size, "%s: larger than %d bytes", path, S_FILE_MAX);
    else
        workflow = drover_workflowfile_parse (path, data, got, title, error, size);
    free (data);
    return workflow;
}
