/*  =========================================================================
    drover_log - the broker's and the worker's log lines dated in full
    ISO 8601 UTC, with milliseconds (see the header)
    =========================================================================
*/

#define _GNU_SOURCE             //  fopencookie
#include "drover_log.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

//  czmq's date: "yy-mm-dd HH:MM:SS", then a space
#define S_CZMQ_DATE     "00-00-00 00:00:00"
#define S_CZMQ_DATE_LEN (sizeof S_CZMQ_DATE - 1)

//  Longest line we rewrite at once (czmq's lines are under 1 KiB)
#define S_LINE_MAX      4096

//  The cookie stream's state; stdio calls it under the stream's lock
typedef struct {
    int fd;                     //  where lines go (borrowed)
    const char *tool;           //  a command's name: lines for its user; NULL: a log
    bool verbose;               //  for a command: every line, not only its warnings
    bool journal;               //  fd is the journal's stream: "<N>" prefixes, no date
    char line [S_LINE_MAX];     //  the line being written, until its newline
    size_t size;                //  bytes of it so far
} s_sink_t;

//  Return true if text (at least S_CZMQ_DATE_LEN + 1 bytes) is czmq's date
//  followed by a space: digits where the pattern has them, the same
//  separators where it has those
static bool
s_is_czmq_date (const char *text)
{
    for (size_t index = 0; index < S_CZMQ_DATE_LEN; index++) {
        char expected = S_CZMQ_DATE [index];
        if (expected == '0') {
            if (text [index] < '0' || text [index] > '9')
                return false;
        }
        else
        if (text [index] != expected)
            return false;
    }
    return text [S_CZMQ_DATE_LEN] == ' ';
}

//  Return the offset of czmq's date in line ("L: " then "(ident) " if
//  any), or -1 if the line does not carry one
static long
s_date_offset (const char *line, size_t size)
{
    if (size < 3 || line [1] != ':' || line [2] != ' ')
        return -1;
    size_t offset = 3;
    if (offset < size && line [offset] == '(') {
        const char *close = memchr (line + offset, ')', size - offset);
        if (!close || (size_t) (close - line) + 1 >= size || close [1] != ' ')
            return -1;
        offset = (size_t) (close - line) + 2;
    }
    if (size < offset + S_CZMQ_DATE_LEN + 1 || !s_is_czmq_date (line + offset))
        return -1;
    return (long) offset;
}

//  Write msec since the Unix epoch as ISO 8601 UTC with milliseconds
char *
drover_log_iso8601 (int64_t msec, char *out)
{
    time_t seconds = (time_t) (msec / 1000);
    int millis = (int) (msec % 1000);
    if (millis < 0) {
        millis += 1000;
        seconds--;
    }
    struct tm tm;
    if (!gmtime_r (&seconds, &tm))
        memset (&tm, 0, sizeof tm);
    char seconds_text [32];
    if (strftime (seconds_text, sizeof seconds_text, "%Y-%m-%dT%H:%M:%S", &tm) != 19)
        snprintf (seconds_text, sizeof seconds_text, "0000-00-00T00:00:00");
    snprintf (out, 25, "%.19s.%03dZ", seconds_text, millis);
    return out;
}

//  Rewrite one log line's czmq date as ISO 8601 UTC at now_msec
size_t
drover_log_rewrite (const char *line, size_t size, int64_t now_msec,
                    char *out, size_t out_size)
{
    if (out_size == 0)
        return 0;
    long offset = s_date_offset (line, size);
    int written;
    if (offset < 0)
        written = snprintf (out, out_size, "%.*s", (int) size, line);
    else {
        char date [25];
        size_t rest = (size_t) offset + S_CZMQ_DATE_LEN;
        written = snprintf (out, out_size, "%.*s%s%.*s", (int) offset, line,
                            drover_log_iso8601 (now_msec, date),
                            (int) (size - rest), line + rest);
    }
    if (written < 0)
        return 0;
    return (size_t) written < out_size? (size_t) written: out_size - 1;
}

//  Say a log line for a command's user: warnings and errors, as the
//  command's own messages are said
size_t
drover_log_rewrite_tool (const char *line, size_t size, const char *name, bool verbose,
                         char *out, size_t out_size)
{
    if (out_size == 0)
        return 0;
    out [0] = 0;
    long offset = s_date_offset (line, size);
    int written;
    if (offset < 0)
        written = snprintf (out, out_size, "%.*s", (int) size, line);
    else {
        const char *kind = line [0] == 'W'? "warning": line [0] == 'E'? "error"
                         : !verbose? NULL
                         : line [0] == 'N'? "notice": line [0] == 'I'? "info": "debug";
        if (!kind)
            return 0;           //  debug, info, notice: not the user's news
        size_t rest = (size_t) offset + S_CZMQ_DATE_LEN + 1;
        written = snprintf (out, out_size, "%s: %s: %.*s", name, kind, (int) (size - rest),
                            line + rest);
    }
    if (written < 0)
        return 0;
    return (size_t) written < out_size? (size_t) written: out_size - 1;
}

//  The czmq level letters, most severe first, and their sd-daemon(3)
//  priorities (error 3, warning 4, notice 5, info 6, debug 7)
static const char s_letters [] = "EWNID";

//  The least severe level written (an index into s_letters): every line
//  until the owner says otherwise. Read by whichever thread logs, set by
//  the main: an int, atomically.
static int s_level = DROVER_LOG_DEBUG;

//  Return a level's index by its name, or -1
int
drover_log_level_parse (const char *name)
{
    static const char *names [] = { "error", "warning", "notice", "info", "debug" };
    for (int index = 0; index < 5; index++)
        if (name && streq (name, names [index]))
            return index;
    return -1;
}

//  Write lines of level and more severe only (DROVER_LOG_ERROR ... DEBUG)
void
drover_log_set_level (int level)
{
    assert (level >= DROVER_LOG_ERROR && level <= DROVER_LOG_DEBUG);
    __atomic_store_n (&s_level, level, __ATOMIC_RELAXED);
}

//  The level lines are written at and above
int
drover_log_level (void)
{
    return __atomic_load_n (&s_level, __ATOMIC_RELAXED);
}

//  Return the level of a czmq line by its letter, or -1 if it has none
static int
s_line_level (const char *line, size_t size)
{
    if (size < 3 || line [1] != ':' || line [2] != ' ')
        return -1;
    const char *letter = strchr (s_letters, line [0]);
    return letter && *letter? (int) (letter - s_letters): -1;
}

//  Rewrite one log line for the journal: "<N>TEXT"
size_t
drover_log_rewrite_journal (const char *line, size_t size, char *out, size_t out_size)
{
    if (out_size == 0)
        return 0;
    long offset = s_date_offset (line, size);
    int level = s_line_level (line, size);
    int written;
    if (offset < 0 || level < 0)
        written = snprintf (out, out_size, "%.*s", (int) size, line);
    else {
        size_t rest = (size_t) offset + S_CZMQ_DATE_LEN + 1;
        written = snprintf (out, out_size, "<%d>%.*s", level + 3, (int) (size - rest),
                            line + rest);
    }
    if (written < 0)
        return 0;
    return (size_t) written < out_size? (size_t) written: out_size - 1;
}

//  Tell whether fd is the journal's stream: JOURNAL_STREAM says
//  "DEVICE:INODE" of the stream systemd connected to the service's stdout
//  or stderr (systemd.exec(5)); a stream redirected since is not
bool
drover_log_is_journal (int fd, const char *journal_stream)
{
    if (!journal_stream || !*journal_stream)
        return false;
    unsigned long long device, inode;
    char end;
    if (sscanf (journal_stream, "%llu:%llu%c", &device, &inode, &end) != 2)
        return false;
    struct stat info;
    if (fstat (fd, &info))
        return false;
    return (unsigned long long) info.st_dev == device
        && (unsigned long long) info.st_ino == inode;
}

//  Write all of data to fd; a log that cannot be written is dropped
static void
s_write_all (int fd, const char *data, size_t size)
{
    while (size > 0) {
        ssize_t done = write (fd, data, size);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            return;
        data += done;
        size -= (size_t) done;
    }
}

//  Write the line held so far, rewritten, with its newline
static void
s_sink_flush_line (s_sink_t *self, bool newline)
{
    char out [S_LINE_MAX + 80];
    int level = s_line_level (self->line, self->size);
    if (!self->tool && level > drover_log_level ()) {
        self->size = 0;
        return;                 //  below the level asked for: dropped
    }
    size_t size = self->journal
                ? drover_log_rewrite_journal (self->line, self->size, out, sizeof out - 1)
                : self->tool
                ? drover_log_rewrite_tool (self->line, self->size, self->tool,
                                           self->verbose, out, sizeof out - 1)
                : drover_log_rewrite (self->line, self->size, zclock_time (), out,
                                      sizeof out - 1);
    if (newline && (size || !self->tool))
        out [size++] = '\n';
    s_write_all (self->fd, out, size);
    self->size = 0;
}

//  The cookie stream's write: gather bytes into lines, write each line
//  rewritten as its newline comes (a line past S_LINE_MAX goes in pieces)
static ssize_t
s_sink_write (void *cookie, const char *data, size_t size)
{
    s_sink_t *self = (s_sink_t *) cookie;
    for (size_t index = 0; index < size; index++) {
        if (data [index] == '\n')
            s_sink_flush_line (self, true);
        else {
            if (self->size == sizeof self->line)
                s_sink_flush_line (self, false);
            self->line [self->size++] = data [index];
        }
    }
    return (ssize_t) size;
}

//  Send czmq's log lines to fd through the cookie stream, for an
//  operator's log (tool NULL) or a command's user
static int
s_init (int fd, const char *tool, bool verbose)
{
    //  Lives as long as the process: czmq may log until exit
    static s_sink_t sink;
    sink.fd = fd;
    sink.tool = tool;
    sink.verbose = verbose;
    sink.journal = !tool && drover_log_is_journal (fd, getenv ("JOURNAL_STREAM"));
    sink.size = 0;
    cookie_io_functions_t functions = { NULL, s_sink_write, NULL, NULL };
    FILE *stream = fopencookie (&sink, "w", functions);
    if (!stream)
        return -1;
    setvbuf (stream, NULL, _IOLBF, S_LINE_MAX);
    zsys_set_logstream (stream);
    return 0;
}

//  Send czmq's log lines to fd, each dated in ISO 8601 UTC (or, to the
//  journal, with its priority)
int
drover_log_init (int fd)
{
    return s_init (fd, NULL, false);
}

//  Send czmq's warnings and errors to fd for a command's user
int
drover_log_init_tool (int fd, const char *name, bool verbose)
{
    assert (name);
    return s_init (fd, name, verbose);
}

//  Start a command's log stream on stderr, verbose as DROVER_VERBOSE says
void
drover_log_init_command (const char *name)
{
    const char *verbose = getenv ("DROVER_VERBOSE");
    bool chatty = verbose && *verbose && strneq (verbose, "0");
    if (drover_log_init_tool (STDERR_FILENO, name, chatty))
        zsys_set_logstream (stderr);
}
