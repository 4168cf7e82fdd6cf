/*  =========================================================================
    drover_cli - what the `drover` subcommands share: global options,
    connecting, saying errors in plain words, parsing flag values, and
    waiting for a set of tasks with a progress bar and a summary
    =========================================================================
*/

#ifndef DROVER_CLI_H_INCLUDED
#define DROVER_CLI_H_INCLUDED

#include <czmq.h>
#include <getopt.h>
#include "drover_msg.h"
#include "drover_client_wire.h"
#include "drover_serverkeys.h"

//  Exit statuses of the client subcommands
#define DROVER_EXIT_OK          0       //  done, every task succeeded
#define DROVER_EXIT_FAILED      1       //  a task failed, or the broker refused or was unreachable
#define DROVER_EXIT_USAGE       2       //  bad flags or arguments
#define DROVER_EXIT_INTERRUPTED 130     //  SIGINT
#define DROVER_CLI_HELP         (-1)    //  from a flag parser: help was printed, exit 0

//  Settings every client subcommand takes (before or after the subcommand)
typedef struct {
    const char *broker;         //  ROUTER endpoint, or NULL for DROVER_BROKER / default
    const char *events;         //  PUB endpoint, or NULL for DROVER_EVENTS / default
    int timeout;                //  reply deadline, msec
    const char *key;            //  --key: our key pair file, or NULL for DROVER_KEY / default
    const char *server_key;     //  --server-key: the brokers' public key files and
                                //  directories (comma-separated: every flag's), or NULL
    bool json;                  //  the command's --json (-j): a JSON document on stdout
} drover_cli_globals_t;

extern drover_cli_globals_t drover_cli_globals;

//  Long options every client subcommand accepts; use in each option table
#define DROVER_CLI_OPT_BROKER   1000
#define DROVER_CLI_OPT_TIMEOUT  1001
#define DROVER_CLI_OPT_EVENTS   1002
#define DROVER_CLI_OPT_KEY      1003
#define DROVER_CLI_OPT_SERVER_KEY   1004
#define DROVER_CLI_OPT_VERSION  1005
#define DROVER_CLI_COMMON_OPTIONS \
    { "broker", required_argument, NULL, DROVER_CLI_OPT_BROKER }, \
    { "version", no_argument, NULL, DROVER_CLI_OPT_VERSION }, \
    { "broker-timeout", required_argument, NULL, DROVER_CLI_OPT_TIMEOUT }, \
    { "server-key", required_argument, NULL, DROVER_CLI_OPT_SERVER_KEY }, \
    { "help", no_argument, NULL, 'h' }
//  --key FILE after the subcommand: every client subcommand's (submit
//  checks the file first: its --key was the submit key, now --submit-key)
#define DROVER_CLI_KEY_OPTION \
    { "key", required_argument, NULL, DROVER_CLI_OPT_KEY }

//  Handle a common option (or a getopt error) for subcommand; returns 0 if
//  handled, or an exit status to return (usage printed by the caller on 'h')
int
    drover_cli_common_option (const char *command, int option, char **argv);

//  Print "drover VERSION (protocol N)" on stdout, as --version does
void
    drover_cli_print_version (void);

//  Connect a client with the global settings (and keys); prints why and
//  returns NULL
drover_client_t *
    drover_cli_connect (const char *command);

//  Find the CURVE key files: --key / --server-key, else DROVER_KEY /
//  DROVER_SERVER_KEY, else $XDG_CONFIG_HOME/drover/client.key and
//  server.key (~/.config by default) where they exist. Sets both (CURVE)
//  or neither (plain) and returns 0, or prints why one has no partner and
//  returns -1 (a key without a server key is fine when the list of
//  brokers names each broker's key file: ENDPOINT=FILE). The server key
//  may list several files and directories, comma-separated. The paths are borrowed (argv, environ or a static buffer).
int
    drover_cli_keys (const char *command, const char **key_p, const char **server_key_p);

//  Most server key files and directories a command takes
#define DROVER_CLI_SERVER_KEYS_MAX  64

//  The brokers' public keys server_key lists (comma-separated files and
//  directories; NULL none), with the keys the list of brokers names
//  ("ENDPOINT=KEY", NULL: no list): for a socket the CLI makes itself
//  (drover_serverkeys_for gives each endpoint's). NULL with why in
//  *error_p (caller frees).
drover_serverkeys_t *
    drover_cli_server_keys (const char *server_key, const char *brokers, char **error_p);

//  Print the client's last error in plain words, prefixed by what failed;
//  returns the exit status to use
int
    drover_cli_error (drover_client_t *client, const char *what);

//  Print "drover <command>: <message>" and return DROVER_EXIT_USAGE
int
    drover_cli_usage_error (const char *command, const char *format, ...);

//  Parse numbers for flags; 0, or -1 after printing a message naming flag
int
    drover_cli_parse_int (const char *command, const char *flag, const char *text,
                          long long min, long long max, long long *value_p);
int
    drover_cli_parse_seconds (const char *command, const char *flag, const char *text,
                              double max, uint32_t *msec_p);
int
    drover_cli_parse_size (const char *command, const char *flag, const char *text,
                           uint64_t *bytes_p);
int
    drover_cli_parse_id (const char *command, const char *text, uint64_t *task_p);

//  Parse a task state name (case-insensitive) or "all" (255); -1 if unknown
int
    drover_cli_parse_state (const char *text);

//  Map a TASK DONE to the exit status `drover submit --wait` returns
int
    drover_cli_exit_status (const drover_msg_t *done);

//  Describe how a task ended, e.g. "exit 3", "signal 9 (Killed)", "timed out"
void
    drover_cli_describe_end (const drover_msg_t *done, char *buffer, size_t size);

//  Name how a task ended (drover_end_t) in lower case words, e.g. "timed out"
void
    drover_cli_end_name (int end, char *buffer, size_t size);

//  Parse flags that only take the common options plus --json (json_p
//  NULL: not even that), as status, workers, tasks, hold, drain, resume,
//  explain, plan and pool do (tools/cli/drover_cli_admin.c); returns 0,
//  DROVER_CLI_HELP, or an exit status
int
    drover_cli_parse_simple (const char *command, int argc, char **argv, bool *json_p,
                             void (*usage) (FILE *stream));

//  Lower-case a name into buffer (for JSON values); returns buffer
const char *
    drover_cli_lower (const char *name, char *buffer, size_t size);

//  True if a row's worker went (lost or left): a broker before rows said
//  so tells it by health LOST
bool
    drover_cli_row_gone (const drover_worker_row_t *row);

//  Print the counts of tasks by state on one line, after prefix
void
    drover_cli_print_counts (const char *prefix, const uint64_t *counts);

//  Wait for count tasks with a progress bar (stderr) and a summary (stdout),
//  listing up to max_listed failures (0: all). Returns the exit status.
int
    drover_cli_wait_tasks (drover_client_t *client, const uint64_t *tasks, size_t count,
                           size_t max_listed);

//  A progress line on stderr: a bar when stderr is a tty, else a plain
//  line every few seconds
typedef struct {
    bool tty;                   //  stderr is a terminal
    int64_t started;            //  msec monotonic
    int64_t printed;            //  last plain line, msec monotonic
    bool drawn;                 //  a bar is on screen
} drover_cli_progress_t;

void
    drover_cli_progress_init (drover_cli_progress_t *self);
//  Show verb done/total and extra text; force prints a plain line now
void
    drover_cli_progress_show (drover_cli_progress_t *self, const char *verb, size_t done,
                              size_t total, const char *extra, bool force);
//  Clear the bar, if drawn
void
    drover_cli_progress_clear (drover_cli_progress_t *self);

//  The subcommands: argv [0] is the subcommand's name
int drover_cli_submit (int argc, char **argv);
int drover_cli_wait (int argc, char **argv);
int drover_cli_cancel (int argc, char **argv);
int drover_cli_status (int argc, char **argv);
int drover_cli_workers (int argc, char **argv);
int drover_cli_tasks (int argc, char **argv);
int drover_cli_admin (int argc, char **argv);
int drover_cli_events (int argc, char **argv);
int drover_cli_keygen (int argc, char **argv);
int drover_cli_top (int argc, char **argv);
int drover_cli_show (int argc, char **argv);
int drover_cli_show_worker (int argc, char **argv);   //  show worker ID
int drover_cli_logs (int argc, char **argv);
int drover_cli_explain (int argc, char **argv);
int drover_cli_pool (int argc, char **argv);
int drover_cli_share (int argc, char **argv);
int drover_cli_operator (int argc, char **argv);     //  `drover admin` (drover_cli_backup.c)
int drover_cli_service (int argc, char **argv);
int drover_cli_plan (int argc, char **argv);

//  Print a reconciler term's statistics as one JSON object, no newline
//  (tools/cli/drover_cli_service.c; service stats, plan)
void
    drover_cli_service_stats_json (const drover_service_stats_t *stats);

//  Print two terms' statistics side by side for people, one row per figure
void
    drover_cli_service_stats_compare (const drover_service_stats_t *before,
                                      const drover_service_stats_t *after);

//  Return the edit distance (Levenshtein) between two short words, for
//  "did you mean" (SIZE_MAX if either has 64 bytes or more)
size_t
    drover_cli_distance (const char *left, const char *right);

//  Ask why a task waits and put the verdict's words in text. Returns 1 if
//  no connected worker could ever run it, 0 if one could or it does not
//  wait, -1 if the broker did not say (text empty).
int
    drover_cli_explain_verdict (drover_client_t *client, uint64_t task, char *text, size_t size);

//  Warn on stderr if no connected worker could ever run a task just
//  submitted (count alike from first on: one warning for them all); the
//  verdict's words go into text. Returns true if it warned.
bool
    drover_cli_explain_warn (drover_client_t *client, const char *command, uint64_t first,
                             size_t count, char *text, size_t size);

//  Watching tasks waited for (tools/cli/drover_cli_explain.c): after quiet
//  msec without one ending, and then whenever it changes, say on stderr
//  which are left and why (their explanations, on a connection of its own)
typedef struct _drover_cli_watch_t drover_cli_watch_t;

drover_cli_watch_t *
    drover_cli_watch_new (const char *command, const uint64_t *tasks, size_t count,
                          int64_t quiet);
void
    drover_cli_watch_destroy (drover_cli_watch_t **self_p);
//  Take a task's words as said already (by a warning)
void
    drover_cli_watch_said (drover_cli_watch_t *self, uint64_t task, const char *text);
//  A task ended
void
    drover_cli_watch_ended (drover_cli_watch_t *self, uint64_t task);
//  Wait's progress callback's news: done of total ended (progress: the
//  bar to clear before saying anything, or NULL)
void
    drover_cli_watch_tick (drover_cli_watch_t *self, size_t done, size_t total,
                           drover_cli_progress_t *progress);

//  Arrays and workflows (tools/cli/drover_cli_groups.c). Name a wait
//  (drover_waits_t: "after", "begin", "retry", "array", "group"; "" none)
//  and an after kind as its option does ("after", "after-any",
//  "after-fail"; DROVER_AFTER_STEP ignored)
const char *
    drover_cli_waits_name (int waits);
const char *
    drover_cli_after_name (int kind);

//  Describe a group's member counts (counts by drover_task_state_t) in
//  one line: "array 40: 812 of 1000 ended, 50 running" (a workflow's if
//  not array; ", at most L at once" with a limit)
void
    drover_cli_group_line (uint64_t task, bool array, uint32_t members, const uint64_t *counts,
                           uint32_t limit, char *buffer, size_t size);

//  The groups a wait waits for: of at most 64 ids, those TASK SHOW says
//  are arrays or workflows (a broker of level 3); NULL if none
typedef struct _drover_cli_groups_t drover_cli_groups_t;

drover_cli_groups_t *
    drover_cli_groups_new (drover_client_t *client, const uint64_t *tasks, size_t count);
void
    drover_cli_groups_destroy (drover_cli_groups_t **self_p);
//  Say on stderr the groups whose member counts changed (asked at most
//  once a second, on a connection of its own), clearing progress's bar
void
    drover_cli_groups_tick (drover_cli_groups_t *self, drover_cli_progress_t *progress);

//  An aligned table for people (tools/cli/drover_cli_table.c): cells are
//  copied; each column as wide as its widest cell
#define DROVER_CLI_TABLE_COLUMNS    16
typedef struct {
    int columns;                //  cells per row
    size_t rows;                //  rows, the header included
    size_t capacity;            //  room for rows
    char **cells;               //  rows * columns strings, owned
} drover_cli_table_t;

//  Start an empty table of columns
void
    drover_cli_table_init (drover_cli_table_t *table, int columns);
//  Add a row of columns strings
void
    drover_cli_table_add (drover_cli_table_t *table, const char **cells);
//  Print the table and free its cells
void
    drover_cli_table_print (drover_cli_table_t *table);

//  Format a wall-clock time (msec since the epoch) as ISO 8601, local with
//  its UTC offset or UTC with a Z; "" for 0
void
    drover_cli_iso_time (int64_t msec, bool utc, char *buffer, size_t size);

//  Format a duration in msec for people: "0.4s", "3m04s", "2h05m09s", "3d04h12m"
void
    drover_cli_duration (int64_t msec, char *buffer, size_t size);

//  Append text to a string builder, JSON-escaped inside quotes
void
    drover_cli_json_string (FILE *stream, const char *text);

//  Print {"ids":[...]} and a newline on stdout
void
    drover_cli_json_ids (const uint64_t *tasks, size_t count);

//  Print a task's outcome (TASK DONE) as one JSON object on stdout, no
//  newline: id, state, outcome, exit_code, signal, status (the exit status
//  submit --wait returns), worker, reason; with output also its stdout
//  and stderr as strings
void
    drover_cli_json_done (const drover_msg_t *done, bool output);

//  Which broker of a list leads (tools/cli/drover_cli_brokers.c): `drover
//  status` asks each endpoint directly, all at once, for up to
//  DROVER_CLI_BROKERS_TIMEOUT msec
#define DROVER_CLI_BROKERS_TIMEOUT  1000

typedef enum {
    DROVER_CLI_BROKER_UNREACHABLE = 0,  //  no answer in time
    DROVER_CLI_BROKER_LEADER = 1,       //  it answered itself: it serves
    DROVER_CLI_BROKER_STANDBY = 2       //  it answered REDIRECT
} drover_cli_broker_state_t;

typedef struct {
    const char *endpoint;       //  as the list gives it (borrowed from the list)
    int state;                  //  drover_cli_broker_state_t
    char leader [DROVER_ENDPOINT_MAX + 1];  //  standby: the leader its REDIRECT names, ""
                                //  none known; leader: its own endpoint; else ""
    char leader_name [DROVER_ID_MAX + 1];   //  that leader's name ("" unknown; a leader's
                                //  own is the one its CLIENT WELCOME says, or a standby's)
    char name [DROVER_ID_MAX + 1];  //  the broker's own name, as its CLIENT WELCOME says
                                //  ("" none, or a broker before levels)
    char why [256];             //  unreachable: the broker refused our handshake, and
                                //  why (a CURVE key it does not hold...); else ""
} drover_cli_broker_t;

typedef struct _drover_cli_brokers_t drover_cli_brokers_t;

//  Take a comma-separated list of brokers, none probed yet; NULL if it
//  holds no endpoint
drover_cli_brokers_t *
    drover_cli_brokers_new (const char *list);
//  Destroy; harmless on NULL
void
    drover_cli_brokers_destroy (drover_cli_brokers_t **self_p);
//  Return how many brokers the list has
size_t
    drover_cli_brokers_size (drover_cli_brokers_t *self);
//  Return what the probe found of broker index (borrowed)
const drover_cli_broker_t *
    drover_cli_brokers_at (drover_cli_brokers_t *self, size_t index);
//  Ask every broker at once, each on a DEALER of its own (CURVE with key
//  and server_key if key is set), for up to timeout msec. Returns 0, or -1
//  with *error_p (ours to free) if a key file is unusable or we were
//  interrupted.
int
    drover_cli_brokers_probe (drover_cli_brokers_t *self, const char *key,
                              const char *server_key, int timeout, char **error_p);
//  Return how many brokers answered the probe, as leader or standby, or
//  refused our handshake
size_t
    drover_cli_brokers_answered (drover_cli_brokers_t *self);
//  Return the msec a command's probe waits: DROVER_CLI_BROKERS_TIMEOUT,
//  or --broker-timeout if less
int
    drover_cli_brokers_timeout (void);
//  Return the list with the one broker that answered as leader first, the
//  others in their order (ours to free); NULL if none or several did, or
//  it is first already
char *
    drover_cli_brokers_leader_first (drover_cli_brokers_t *self);
//  Say what the brokers disagree on (several answer as leader; a standby
//  names another leader than the one that answered: a split view), or
//  that none leads; NULL if nothing. Ours to free.
char *
    drover_cli_brokers_warning (drover_cli_brokers_t *self);
//  Print the brokers for people, a line each, the first one labelled
//  "brokers:"
void
    drover_cli_brokers_print (drover_cli_brokers_t *self, FILE *stream);

//  Copy text into buffer (size bytes) for a terminal, '?' for what is not
//  printable; returns buffer
const char *
    drover_cli_printable (const char *text, char *buffer, size_t size);
//  Print the brokers as a JSON array of {endpoint, state, leader_name,
//  leader}, no newline (and "why" for a refused handshake)
void
    drover_cli_brokers_print_json (drover_cli_brokers_t *self, FILE *stream);
//  For a command given several brokers (--broker, DROVER_BROKER): probe
//  them all (for drover_cli_brokers_timeout) into *brokers_p; it stays NULL with one broker.
//  Returns 0, or an exit status after saying why.
int
    drover_cli_brokers_ask (const char *command, drover_cli_brokers_t **brokers_p);
//  drover_cli_connect, with the list reordered leader first when the probe
//  found one leader (brokers may be NULL)
drover_client_t *
    drover_cli_brokers_connect (const char *command, drover_cli_brokers_t *brokers);

//  The event streams `drover events` hears (tools/cli/drover_cli_feed.c): one
//  SUB connected to every broker's publisher it knows of, watched
typedef struct _drover_cli_feed_t drover_cli_feed_t;

#define DROVER_CLI_FEED_UP      1   //  a publisher's handshake succeeded
#define DROVER_CLI_FEED_DOWN    2   //  a publisher that was up went down
#define DROVER_CLI_FEED_REFUSED 3   //  a publisher refused our handshake

//  Write into out (size bytes) where a broker whose ROUTER is at router
//  publishes by default: tcp://HOST:PORT+1. Returns 0, or -1 if router
//  is not tcp://HOST:PORT (a port below 65535, no wildcard).
int
    drover_cli_feed_derive (const char *router, char *out, size_t size);
//  Create a feed: a SUB (CURVE with the key pair key, if set: each
//  publisher's server key comes with it, drover_cli_feed_add) subscribed
//  to the topics (none: everything), watched, connected to nothing yet.
//  NULL with *error_p (ours to free) if the key is unusable.
drover_cli_feed_t *
    drover_cli_feed_new (const char *key, const char **topics, int ntopics, char **error_p);
//  Destroy the feed; harmless on NULL
void
    drover_cli_feed_destroy (drover_cli_feed_t **self_p);
//  Connect to the publisher at endpoint, unless connected already; with
//  CURVE, server_key is its broker's public key (Z85; each publisher has
//  its broker's). Returns 1 if it is new, 0 if known, -1 if ZeroMQ does
//  not take it, -2 if no server key is given with CURVE.
int
    drover_cli_feed_add (drover_cli_feed_t *self, const char *endpoint,
                         const char *server_key);
//  Return the SUB, to poll and read
zsock_t *
    drover_cli_feed_sock (drover_cli_feed_t *self);
//  Return the monitor, to poll: drover_cli_feed_read takes what it says
zsock_t *
    drover_cli_feed_monitor (drover_cli_feed_t *self);
//  Read one connection event: DROVER_CLI_FEED_UP, _DOWN, _REFUSED (reason
//  says why), or 0; the publisher's endpoint goes into endpoint
int
    drover_cli_feed_read (drover_cli_feed_t *self, char *endpoint, size_t endpoint_size,
                          char *reason, size_t reason_size);
//  Return how many publishers are up
size_t
    drover_cli_feed_up (drover_cli_feed_t *self);
//  Return the publishers connected to, ", "-separated (borrowed)
const char *
    drover_cli_feed_list (drover_cli_feed_t *self);

//  The named queues (tools/cli/drover_cli_queues.c). Print a QUEUE TABLE's
//  queues for people, a line each (name, owner, owner endpoint) under a
//  "queues:" label; nothing when there are none (table may be NULL)
void
    drover_cli_queues_print (const drover_msg_t *table, FILE *stream);

//  Print a QUEUE TABLE's queues as a JSON array of {name, owner,
//  owner_endpoint, token, endpoints}, no newline (table may be NULL: [])
void
    drover_cli_queues_print_json (const drover_msg_t *table, FILE *stream);

//  Connect command's client: with a queue named (queue, else the
//  environment's DROVER_QUEUE), to that queue's brokers, the owner first,
//  as QUEUES asked of the global broker list says; else as
//  drover_cli_connect. Returns 0 with *client_p set, or an exit status
//  after saying why: 2 for a queue that is not a name or not known, 1
//  when the brokers did not say.
int
    drover_cli_queue_connect (const char *command, const char *queue,
                              drover_client_t **client_p);

#endif
