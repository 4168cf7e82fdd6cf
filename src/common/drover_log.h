/*  =========================================================================
    drover_log - the broker's and the worker's log lines dated in full
    ISO 8601 UTC, with milliseconds; a command's, said for its user

    czmq's zsys_* functions date each line with a two-digit year in local
    time and whole seconds ("I: (drover-broker) 26-11-24 05:08:25 ..."),
    which sorts wrongly across a century, is ambiguous across time zones
    and daylight saving, and cannot order two lines of one second. Rather
    than replace every zsys_* call, drover_log_init gives czmq a log stream
    (a glibc cookie stream) that rewrites each line's date as it is written:
    "I: (drover-broker) 2026-11-24T05:08:25.123Z ...". Lines that do not
    carry czmq's date pass through untouched.

    When fd is the journal's stream (systemd's JOURNAL_STREAM names it),
    each line goes as "<6>TEXT" instead, its priority as sd-daemon(3) says
    (<3> error, <4> warning, <5> notice, <6> info, <7> debug) and without
    level letter, ident or date: the journal keeps its own.
    Lines less severe than drover_log_set_level's are dropped.
    =========================================================================
*/

#ifndef DROVER_LOG_H_INCLUDED
#define DROVER_LOG_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

//  The levels, most severe first (the journal's priority is level + 3)
enum { DROVER_LOG_ERROR, DROVER_LOG_WARNING, DROVER_LOG_NOTICE, DROVER_LOG_INFO,
       DROVER_LOG_DEBUG };

//  Send czmq's log lines to fd (borrowed, left open), each dated now in
//  ISO 8601 UTC. Returns 0, or -1 if the stream cannot be made (czmq's own
//  stream then stays in place). Call once, before the first log line.
int
    drover_log_init (int fd);

//  Write into out (out_size bytes, NUL-ended) the log line line (size
//  bytes, without its newline) with czmq's date replaced by now_msec (msec
//  since the Unix epoch) in ISO 8601 UTC. A line without czmq's date is
//  copied as it is. Returns the bytes written, not counting the NUL; a
//  line cut at out_size - 1 bytes.
size_t
    drover_log_rewrite (const char *line, size_t size, int64_t now_msec,
                        char *out, size_t out_size);

//  For a command's user rather than an operator's log (the CLI): send
//  czmq's log lines to fd (borrowed, left open) as "name: warning: TEXT"
//  and "name: error: TEXT", without level, ident or date, and drop the
//  debug, info and notice lines (a client moving to the next broker of
//  its list is not the command's news) unless verbose (then "name: info:
//  TEXT"...). Lines without czmq's date pass through. Returns 0, or -1 if
//  the stream cannot be made (czmq's own stream then stays in place).
//  Call once, before the first log line.
int
    drover_log_init_tool (int fd, const char *name, bool verbose);

//  Start a command's log stream on stderr (drover_log_init_tool), verbose
//  when DROVER_VERBOSE is set and not "0"; if it cannot be made, czmq
//  logs to stderr as it is. What `drover` and `drover-worker` do first.
void
    drover_log_init_command (const char *name);

//  Write into out (out_size bytes, NUL-ended) the log line line (size
//  bytes, without its newline) as drover_log_init_tool says it, name
//  first. Returns the bytes written, not counting the NUL; 0 for a line
//  to drop.
size_t
    drover_log_rewrite_tool (const char *line, size_t size, const char *name, bool verbose,
                             char *out, size_t out_size);

//  Return the level named error, warning, notice, info or debug, or -1
int
    drover_log_level_parse (const char *name);

//  Write only lines of level and more severe from now on (any thread may
//  log meanwhile); DROVER_LOG_DEBUG, every line, until this is called
void
    drover_log_set_level (int level);

//  The least severe level written
int
    drover_log_level (void);

//  Write into out (out_size bytes, NUL-ended) the log line line (size
//  bytes, without its newline) for the journal: "<N>TEXT", N its
//  priority, without level, ident or date. A line without czmq's date is
//  copied as it is. Returns the bytes written, not counting the NUL.
size_t
    drover_log_rewrite_journal (const char *line, size_t size, char *out, size_t out_size);

//  Tell whether fd is the stream journal_stream ("DEVICE:INODE", the
//  JOURNAL_STREAM environment variable, or NULL) names
bool
    drover_log_is_journal (int fd, const char *journal_stream);

//  Write into out (at least 25 bytes) msec since the Unix epoch as ISO 8601
//  UTC with milliseconds, "2026-11-24T05:08:25.123Z"; returns out
char *
    drover_log_iso8601 (int64_t msec, char *out);

#ifdef __cplusplus
}
#endif

#endif
