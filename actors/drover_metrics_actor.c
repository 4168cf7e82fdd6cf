/*  =========================================================================
    drover_metrics_actor - the metrics actor: gathers the other actors' numbers,
    serves them to Prometheus over HTTP and logs a status line

    No actor shares its state: each keeps its own counters as plain
    increments and, asked METRICS round, answers COUNTS round values (a
    packed drover_metrics) through the main, which answers for itself
    too (the messages it refused). A round ends when every answer is in,
    or after S_ROUND_MAX msec with those that are; its snapshot is what a
    scrape gets and what the status line says. Rounds start only when
    someone wants one (a scrape waiting, the status line due), at most one
    every S_ROUND_MIN msec, so a scraper in a loop costs the other actors
    ten short answers a second at most.

    The HTTP server is libmicrohttpd, in this thread: its epoll fd is
    polled beside the pipe and MHD_run never blocks, so nothing a client
    of it does (connect and say nothing, drip a header, send a huge one,
    open many connections) can hold any other actor, nor this one for
    long. A scrape of /metrics is suspended until the next round ends (so
    it sees what was done before it asked), then answered. Connections
    are bounded in number (S_CONNECTIONS), in memory (S_CONNECTION_MEMORY,
    a larger header is refused), in idle time (S_IDLE) and in total time
    (S_CONNECTION_MAX: then its socket is shut down). GET and HEAD only;
    any path but /metrics is 404.

    What it hears and says, and how: actors/ACTORS.md, "metrics" and "How
    actors talk".
    =========================================================================
*/

#include "drover_metrics_actor.h"
#include "drover_metrics.h"
#include "drover_actor.h"
#include <microhttpd.h>
#include <netdb.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/socket.h>

//  Msec a round waits for its answers at most
#define S_ROUND_MAX         1000
//  Msec between the starts of two rounds at least
#define S_ROUND_MIN         100
//  HTTP connections at once, at most
#define S_CONNECTIONS       16
//  Bytes of memory one connection may use (its request header must fit)
#define S_CONNECTION_MEMORY 16384
//  Seconds a connection may stay idle
#define S_IDLE              5
//  Msec a connection may stay open in all
#define S_CONNECTION_MAX    10000
//  Msec between two MHD_run at most while serving: in the external epoll
//  mode, a server that was at its connection limit may not hear of new
//  connections again until it runs (seen with libmicrohttpd 0.9.75)
#define S_RUN_EVERY         100
//  The exposition format's content type
#define S_CONTENT_TYPE      "text/plain; version=0.0.4; charset=utf-8"

//  One HTTP request for /metrics (MHD's con_cls)
typedef struct {
    struct MHD_Connection *connection;  //  its connection (MHD's)
    uint64_t round;             //  the round whose end it waits for
    void *handle;               //  its place in the waiting list while suspended, or NULL
    bool ready;                 //  that round ended: answer
} s_request_t;

//  One open HTTP connection (MHD's socket context), for its total time
typedef struct {
    int fd;                     //  its socket
    int64_t opened;             //  msec (mono) it was accepted
    bool cut;                   //  its socket was shut down
} s_connection_t;

typedef struct {
    zsock_t *pipe;              //  commands from the broker main
    drover_outbox_t *outbox;    //  what this turn says, flushed as one BATCH
    drover_poller_t *poller;    //  the pipe (and the HTTP server's epoll fd)
    drover_actor_flags_t flags; //  EVENTS, VERBOSE, $TERM heard
    struct MHD_Daemon *daemon;  //  the HTTP server, or NULL
    char *address;              //  HOST:PORT it serves, "" for none
    char *endpoint;             //  the broker's ROUTER endpoint (drover_broker_info)
    int counters;               //  answers a round waits for
    uint32_t status_interval;   //  msec between status lines, 0: none
    int64_t status_due;         //  msec (mono) the next status line is due, -1: none
    bool status_wanted;         //  the status line waits for the round in flight
    uint64_t round;             //  the latest round said, 0 before the first
    bool in_round;              //  that round waits for answers
    int answers;                //  answers it has
    int64_t round_started;      //  msec (mono) it started
    drover_metrics_t *gathering;  //  what the round in flight gathered
    char *text;                 //  the last round's exposition text, or NULL
    zlistx_t *waiting;          //  s_request_t waiting for a round (borrowed: MHD's)
    zlistx_t *connections;      //  s_connection_t open (owned)
    int64_t started_at;         //  msec since the epoch the actor started
    uint64_t short_rounds;      //  rounds that ended without every answer
} self_t;


//  MHD's log: ours, with the actor's name
static void
s_log (void *arg, const char *format, va_list args)
{
    char line [256];
    vsnprintf (line, sizeof line, format, args);
    size_t length = strlen (line);
    while (length && line [length - 1] == '\n')
        line [--length] = 0;
    zsys_warning ("metrics: http: %s", line);
}

//  Answer a request at once with a short text and a status
static enum MHD_Result
s_answer_text (struct MHD_Connection *connection, unsigned int status, const char *text)
{
    struct MHD_Response *response = MHD_create_response_from_buffer (
        strlen (text), (void *) text, MHD_RESPMEM_PERSISTENT);
    if (!response)
        return MHD_NO;
    MHD_add_response_header (response, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header (response, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result result = MHD_queue_response (connection, status, response);
    MHD_destroy_response (response);
    return result;
}

//  MHD's access handler: /metrics waits for the next round, then gets its text
static enum MHD_Result
s_handle_http (void *arg, struct MHD_Connection *connection, const char *url,
               const char *method, const char *version, const char *upload_data,
               size_t *upload_data_size, void **request_p)
{
    self_t *self = (self_t *) arg;
    s_request_t *request = (s_request_t *) *request_p;
    if (!request) {
        //  The headers are in: what is asked is known
        if (!streq (method, MHD_HTTP_METHOD_GET) && !streq (method, MHD_HTTP_METHOD_HEAD))
            return s_answer_text (connection, MHD_HTTP_METHOD_NOT_ALLOWED,
                                  "only GET and HEAD\n");
        if (!streq (url, "/metrics"))
            return s_answer_text (connection, MHD_HTTP_NOT_FOUND,
                                  "not found: the metrics are at /metrics\n");
        request = (s_request_t *) zmalloc (sizeof (s_request_t));
        request->connection = connection;
        *request_p = request;
        return MHD_YES;
    }
    if (*upload_data_size) {
        *upload_data_size = 0;  //  a body is not asked for: read and dropped
        return MHD_YES;
    }
    if (!request->ready) {
        //  Wait for the end of a round that starts after this request came
        request->round = self->round + 1;
        request->handle = zlistx_add_end (self->waiting, request);
        MHD_suspend_connection (connection);
        return MHD_YES;
    }
    const char *text = self->text? self->text: "";
    struct MHD_Response *response = MHD_create_response_from_buffer (
        strlen (text), (void *) text, MHD_RESPMEM_MUST_COPY);
    if (!response)
        return MHD_NO;
    MHD_add_response_header (response, MHD_HTTP_HEADER_CONTENT_TYPE, S_CONTENT_TYPE);
    enum MHD_Result result = MHD_queue_response (connection, MHD_HTTP_OK, response);
    MHD_destroy_response (response);
    return result;
}

//  MHD says a request is over: forget it
static void
s_request_completed (void *arg, struct MHD_Connection *connection, void **request_p,
                     enum MHD_RequestTerminationCode why)
{
    self_t *self = (self_t *) arg;
    s_request_t *request = (s_request_t *) *request_p;
    if (!request)
        return;
    if (request->handle)
        zlistx_delete (self->waiting, request->handle);
    free (request);
    *request_p = NULL;
}

//  MHD says a connection opened or closed: keep its socket and age
static void
s_connection_notified (void *arg, struct MHD_Connection *connection, void **context_p,
                       enum MHD_ConnectionNotificationCode code)
{
    self_t *self = (self_t *) arg;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info (connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        s_connection_t *open = (s_connection_t *) zmalloc (sizeof (s_connection_t));
        open->fd = info? info->connect_fd: -1;
        open->opened = zclock_mono ();
        *context_p = zlistx_add_end (self->connections, open);
    }
    else
    if (*context_p) {
        zlistx_delete (self->connections, *context_p);
        *context_p = NULL;
    }
}

//  Free an open connection's record; the list's destructor
static void
s_connection_destroy (void **item_p)
{
    free (*item_p);
    *item_p = NULL;
}

//  Resolve HOST:PORT (HOST may be [IPv6]) into address. Returns 0, or -1.
static int
s_resolve (const char *text, struct sockaddr_storage *address, socklen_t *size_p)
{
    char host [256];
    const char *colon = strrchr (text, ':');
    if (!colon || (size_t) (colon - text) >= sizeof host)
        return -1;
    memcpy (host, text, colon - text);
    host [colon - text] = 0;
    char *name = host;
    size_t length = strlen (host);
    if (length >= 2 && host [0] == '[' && host [length - 1] == ']') {
        host [length - 1] = 0;
        name = host + 1;
    }
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICSERV };
    struct addrinfo *found = NULL;
    if (getaddrinfo (name, colon + 1, &hints, &found) || !found)
        return -1;
    memcpy (address, found->ai_addr, found->ai_addrlen);
    *size_p = found->ai_addrlen;
    freeaddrinfo (found);
    return 0;
}

//  Start the HTTP server on self->address. Returns 0, or -1 with why in *error_p.
static int
s_serve (self_t *self, char **error_p)
{
    struct sockaddr_storage address;
    socklen_t size;
    if (s_resolve (self->address, &address, &size)) {
        *error_p = zsys_sprintf ("metrics: cannot resolve address=%s", self->address);
        return -1;
    }
    //  Our own listening socket: SO_REUSEADDR, so that a restart binds
    //  while the last one's connections are in TIME_WAIT
    int listener = socket (address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int on = 1;
    if (listener == -1
    ||  setsockopt (listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on)
    ||  bind (listener, (struct sockaddr *) &address, size)
    ||  listen (listener, S_CONNECTIONS)) {
        *error_p = zsys_sprintf ("metrics: cannot serve address=%s: %s", self->address,
                                 strerror (errno));
        if (listener != -1)
            close (listener);
        return -1;
    }
    unsigned int flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (address.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    self->daemon = MHD_start_daemon (flags, 0, NULL, NULL, s_handle_http, self,
        MHD_OPTION_EXTERNAL_LOGGER, s_log, NULL,
        MHD_OPTION_LISTEN_SOCKET, listener,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int) S_CONNECTIONS,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) S_IDLE,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) S_CONNECTION_MEMORY,
        MHD_OPTION_NOTIFY_COMPLETED, s_request_completed, self,
        MHD_OPTION_NOTIFY_CONNECTION, s_connection_notified, self,
        MHD_OPTION_END);
    if (!self->daemon) {
        *error_p = zsys_sprintf ("metrics: cannot serve address=%s: %s", self->address,
                                 strerror (errno));
        close (listener);
        return -1;
    }
    return 0;
}

//  Create the actor's state from its args
static self_t *
s_self_new (zsock_t *pipe, drover_metrics_actor_args_t *args)
{
    self_t *self = (self_t *) zmalloc (sizeof (self_t));
    self->pipe = pipe;
    self->outbox = drover_outbox_new ();
    self->poller = drover_poller_new ();
    drover_poller_add (self->poller, pipe);
    self->address = strdup (args->address? args->address: "");
    self->endpoint = strdup (args->endpoint? args->endpoint: "");
    self->counters = args->counters;
    self->status_interval = args->status_interval;
    self->status_due = self->status_interval? zclock_mono () + self->status_interval: -1;
    self->gathering = drover_metrics_new ();
    self->waiting = zlistx_new ();
    self->connections = zlistx_new ();
    zlistx_set_destructor (self->connections, s_connection_destroy);
    self->started_at = zclock_time ();
    return self;
}

//  Destroy the actor's state: the server first (it calls back into self)
static void
s_self_destroy (self_t **self_p)
{
    self_t *self = *self_p;
    if (!self)
        return;
    if (self->daemon) {
        //  Nothing stays suspended: MHD closes what is resumed
        s_request_t *request;
        while ((request = (s_request_t *) zlistx_first (self->waiting))) {
            request->ready = true;
            request->handle = NULL;
            MHD_resume_connection (request->connection);
            zlistx_delete (self->waiting, zlistx_cursor (self->waiting));
        }
        MHD_stop_daemon (self->daemon);
    }
    zlistx_destroy (&self->waiting);
    zlistx_destroy (&self->connections);
    drover_metrics_destroy (&self->gathering);
    zstr_free (&self->text);
    zstr_free (&self->address);
    zstr_free (&self->endpoint);
    drover_poller_destroy (&self->poller);
    drover_outbox_destroy (&self->outbox);
    free (self);
    *self_p = NULL;
}


//  ---------------------------------------------------------------------
//  Rounds

//  Count the process's open descriptors
static uint64_t
s_open_fds (void)
{
    uint64_t count = 0;
    DIR *dir = opendir ("/proc/self/fd");
    if (!dir)
        return 0;
    struct dirent *entry;
    while ((entry = readdir (dir)))
        if (entry->d_name [0] != '.')
            count++;
    closedir (dir);
    return count > 0? count - 1: 0;     //  not the one reading it
}

//  The process's resident memory, bytes
static uint64_t
s_resident (void)
{
    unsigned long pages = 0, resident = 0;
    FILE *file = fopen ("/proc/self/statm", "r");
    if (!file)
        return 0;
    if (fscanf (file, "%lu %lu", &pages, &resident) != 2)
        resident = 0;
    fclose (file);
    return (uint64_t) resident * (uint64_t) sysconf (_SC_PAGESIZE);
}

//  Tell whether a round is wanted now: a scrape waits, or the status line is due
static bool
s_round_wanted (self_t *self, int64_t now)
{
    return zlistx_size (self->waiting) > 0
        || (self->status_due != -1 && now >= self->status_due);
}

//  Start a round if one is wanted and none is in flight, at most one every S_ROUND_MIN
static void
s_start_round (self_t *self, int64_t now)
{
    if (self->in_round || !s_round_wanted (self, now)
    ||  (self->round && now - self->round_started < S_ROUND_MIN))
        return;
    self->round++;
    self->in_round = true;
    self->answers = 0;
    self->round_started = now;
    if (self->status_due != -1 && now >= self->status_due) {
        self->status_wanted = true;
        self->status_due = now + self->status_interval;
    }
    drover_metrics_reset (self->gathering);
    drover_outbox_say (self->outbox, "s8", "METRICS", self->round);
    if (self->flags.verbose)
        zsys_debug ("metrics: round=%" PRIu64 " asked", self->round);
}

//  The round in flight is over (every answer in, or its time up): keep
//  its text, answer the scrapes that waited for it, log the status line
static void
s_end_round (self_t *self)
{
    self->in_round = false;
    if (self->answers < self->counters && ++self->short_rounds % 100 == 1)
        zsys_warning ("metrics: round=%" PRIu64 " ended with answers=%d of %d (short rounds=%"
                      PRIu64 ")", self->round, self->answers, self->counters, self->short_rounds);
    drover_metrics_t *snapshot = self->gathering;
    struct rlimit limit;
    drover_metrics_set (snapshot, DROVER_METRIC_START_TIME, (uint64_t) self->started_at / 1000);
    drover_metrics_set (snapshot, DROVER_METRIC_OPEN_FDS, s_open_fds ());
    if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        drover_metrics_set (snapshot, DROVER_METRIC_MAX_FDS, (uint64_t) limit.rlim_cur);
    drover_metrics_set (snapshot, DROVER_METRIC_RESIDENT, s_resident ());
    drover_metrics_set_info (snapshot, DROVER_VERSION, self->endpoint);
    if (self->daemon) {
        zstr_free (&self->text);
        self->text = drover_metrics_exposition (snapshot);
        s_request_t *request = (s_request_t *) zlistx_first (self->waiting);
        while (request) {
            if (request->round <= self->round) {
                request->ready = true;
                request->handle = NULL;
                MHD_resume_connection (request->connection);
                zlistx_delete (self->waiting, zlistx_cursor (self->waiting));
                request = (s_request_t *) zlistx_first (self->waiting);
            }
            else
                request = (s_request_t *) zlistx_next (self->waiting);
        }
    }
    if (self->status_wanted) {
        char *line = drover_metrics_status (snapshot);
        zsys_info ("metrics: status %s", line);
        zstr_free (&line);
        self->status_wanted = false;
    }
}

//  CONFIGURE status-interval: a reload's new interval between status
//  lines, from now (0: none)
static void
s_configure (self_t *self, uint32_t status_interval, int64_t now)
{
    self->status_interval = status_interval;
    self->status_due = status_interval? now + status_interval: -1;
}

//  COUNTS round values: one answer to the round in flight (a late one is dropped)
static void
s_handle_counts (self_t *self, zmsg_t *msg)
{
    uint64_t round = drover_actor_pop_number (msg);
    zframe_t *values = zmsg_pop (msg);
    assert (values);            //  our own actors say it
    if (self->in_round && round == self->round) {
        int rc = drover_metrics_merge (self->gathering, values);
        assert (rc == 0);
        if (++self->answers >= self->counters)
            s_end_round (self);
    }
    zframe_destroy (&values);
}

//  Handle one control command from the pipe (drover_outbox_receive calls this)
static void
s_handle_command (void *arg, zmsg_t *msg)
{
    self_t *self = (self_t *) arg;
    char command [16];
    drover_actor_pop_text (msg, command, sizeof command);
    if (self->flags.verbose)
        zsys_debug ("metrics: command=%s", command);
    if (streq (command, "COUNTS"))
        s_handle_counts (self, msg);
    else
    if (streq (command, "CONFIGURE"))
        s_configure (self, (uint32_t) drover_actor_pop_number (msg), zclock_mono ());
    else
    if (!drover_actor_handle_common (&self->flags, command, msg)) {
        zsys_error ("metrics: invalid command=%s", command);
        assert (false);         //  the vocabulary is in ACTORS.md
    }
}

//  Shut down the sockets of connections open past S_CONNECTION_MAX: MHD
//  sees them end and closes them. Returns the next cut due, msec (mono), or -1.
static int64_t
s_cut_connections (self_t *self, int64_t now)
{
    int64_t next = -1;
    for (s_connection_t *open = (s_connection_t *) zlistx_first (self->connections); open;
         open = (s_connection_t *) zlistx_next (self->connections)) {
        if (open->cut || open->fd == -1)
            continue;
        int64_t due = open->opened + S_CONNECTION_MAX;
        if (now >= due) {
            shutdown (open->fd, SHUT_RDWR);
            open->cut = true;
            if (self->flags.verbose)
                zsys_debug ("metrics: connection fd=%d cut after %d msec", open->fd,
                            S_CONNECTION_MAX);
        }
        else
        if (next == -1 || due < next)
            next = due;
    }
    return next;
}

//  The next deadline of ours (a round's end, a round's start, the status
//  line, a connection's cut, MHD's own), msec (mono), or -1
static int64_t
s_next_deadline (self_t *self, int64_t now, int64_t cut_due)
{
    int64_t next = cut_due;
    int64_t round_due = self->in_round? self->round_started + S_ROUND_MAX:
                        zlistx_size (self->waiting)? self->round_started + S_ROUND_MIN:
                                                     self->status_due;
    if (round_due != -1 && (next == -1 || round_due < next))
        next = round_due;
    MHD_UNSIGNED_LONG_LONG timeout;
    if (self->daemon && MHD_get_timeout (self->daemon, &timeout) == MHD_YES
    &&  (next == -1 || now + (int64_t) timeout < next))
        next = now + (int64_t) timeout;
    return next;
}

//  The actor
void
drover_metrics_actor (zsock_t *pipe, void *args)
{
    drover_actor_name_thread ("metrics");
    self_t *self = s_self_new (pipe, (drover_metrics_actor_args_t *) args);
    char *error = NULL;
    bool served = !*self->address || s_serve (self, &error) == 0;
    zsock_signal (pipe, 0);
    zsock_send (pipe, "s4s", "STARTED", served? 1: 0, served? self->address: error);
    if (!served) {
        zstr_free (&error);
        s_self_destroy (&self);
        return;
    }
    if (self->daemon)
        zsys_notice ("metrics: serving http://%s/metrics", self->address);
    int epoll_fd = -1;
    if (self->daemon) {
        const union MHD_DaemonInfo *info =
            MHD_get_daemon_info (self->daemon, MHD_DAEMON_INFO_EPOLL_FD);
        assert (info);
        epoll_fd = info->epoll_fd;
    }
    int64_t cut_due = -1;
    while (!self->flags.stopping) {
        int64_t now = zclock_mono ();
        int wait = drover_actor_poll_timeout (s_next_deadline (self, now, cut_due), now);
        if (self->daemon && (wait == -1 || wait > S_RUN_EVERY))
            wait = S_RUN_EVERY;
        zmq_pollitem_t *items = drover_poller_items (self->poller, 1);
        items [0].fd = epoll_fd;
        items [0].events = ZMQ_POLLIN;
        if (drover_actor_wait (self->poller, wait, 0) == -1)
            break;              //  interrupted
        if (drover_actor_read (self->poller, self->pipe, NULL, s_handle_command, NULL,
                               self) == -1)
            break;              //  the context is ending
        now = zclock_mono ();
        if (self->in_round && now - self->round_started >= S_ROUND_MAX)
            s_end_round (self);
        if (self->daemon) {
            MHD_run (self->daemon);     //  never blocks: reads, answers, suspends
            cut_due = s_cut_connections (self, now);
        }
        s_start_round (self, now);
        drover_actor_flush (self->poller, DROVER_PIPE_AT, self->outbox, self->pipe);
    }
    s_self_destroy (&self);
}
